import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
import{a,b}from"./chunk-JAQXNK3U.js";import"./chunk-H6WJT4CN.js";import"./chunk-AFG6BZBD.js";export{b as resolveServer,a as serverFlag};
