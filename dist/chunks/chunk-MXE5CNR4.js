import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
import{c as o}from"./chunk-NHAKVLUE.js";function s(r,n,t){if(n.includes(r))return r;throw new o(`${t} must be one of ${n.join(", ")}; got '${r}'`)}export{s as a};
