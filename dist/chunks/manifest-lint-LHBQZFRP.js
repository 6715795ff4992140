import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
import{a}from"./chunk-XZAZAKS3.js";import"./chunk-NHAKVLUE.js";import"./chunk-JPBGQWYY.js";export{a as lintBeforeSending};
