import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
import{a,b,c,d,e}from"./chunk-GHB64OPJ.js";import"./chunk-JPBGQWYY.js";export{a as bindRun,c as contextOf,e as readAll,b as rootOf,d as setExitCode};
