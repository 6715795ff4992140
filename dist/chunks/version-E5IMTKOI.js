import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
import{b as s}from"./chunk-MNBTWW3Y.js";import"./chunk-GI5LFRDV.js";import{a as n}from"./chunk-4NOPMWZG.js";import"./chunk-GHB64OPJ.js";import"./chunk-NHAKVLUE.js";import"./chunk-JPBGQWYY.js";function a(e){e.addHelpText("after",`
Examples:
  gsh version
  gsh version -o json`).action(async function(){let o={gsh:n,node:process.versions.node,platform:`${process.platform}-${process.arch}`};await s(this,"print the versions of gsh and Node.js and the platform",async()=>o,()=>`gsh ${o.gsh}
node ${o.node}
platform ${o.platform}
`)})}var i={version:[]};export{i as operations,a as register};
