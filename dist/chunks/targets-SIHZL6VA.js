import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
import{a,b,c}from"./chunk-ZOSSCQMG.js";import"./chunk-L354KGT6.js";import"./chunk-IXJI4UEL.js";import"./chunk-JPBGQWYY.js";export{c as resolveTargets,b as singleRef,a as targetRefs};
