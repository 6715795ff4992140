import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
function r(e,t){return{kind:e,description:t}}export{r as a};
