import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
import{c as b}from"./chunk-HML5S2TE.js";import{a}from"./chunk-GRTGU6JY.js";import"./chunk-OG5YEUEE.js";import"./chunk-4NOPMWZG.js";import"./chunk-JPBGQWYY.js";export{b as FORMATTERS,a as FORMAT_NAMES};
