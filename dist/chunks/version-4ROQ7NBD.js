import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
import{b as s}from"./chunk-N7KA3ZPD.js";import"./chunk-J3CTNU3K.js";import{a as n}from"./chunk-UWZHIWWZ.js";import"./chunk-5NUSP5DK.js";import"./chunk-H6WJT4CN.js";import"./chunk-AFG6BZBD.js";function a(e){e.addHelpText("after",`
Examples:
  gsh version
  gsh version -o json`).action(async function(){let o={gsh:n,node:process.versions.node,platform:`${process.platform}-${process.arch}`};await s(this,"print the versions of gsh and Node.js and the platform",async()=>o,()=>`gsh ${o.gsh}
node ${o.node}
platform ${o.platform}
`)})}var i={version:[]};export{i as operations,a as register};
