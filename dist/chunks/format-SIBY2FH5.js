import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
import{b}from"./chunk-6J6BFBSX.js";import{a}from"./chunk-GRTGU6JY.js";import"./chunk-IWQMHE24.js";import"./chunk-JPBGQWYY.js";export{b as FORMATTERS,a as FORMAT_NAMES};
