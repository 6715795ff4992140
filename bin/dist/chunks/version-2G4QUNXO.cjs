var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var a=Object.defineProperty;var f=Object.getOwnPropertyDescriptor;var h=Object.getOwnPropertyNames;var c=Object.prototype.hasOwnProperty;var d=(s,o)=>{for(var t in o)a(s,t,{get:o[t],enumerable:!0})},l=(s,o,t,e)=>{if(o&&typeof o=="object"||typeof o=="function")for(let r of h(o))!c.call(s,r)&&r!==t&&a(s,r,{get:()=>o[r],enumerable:!(e=f(o,r))||e.enumerable});return s};var g=s=>l(a({},"__esModule",{value:!0}),s);var v={};d(v,{operations:()=>m,register:()=>p});module.exports=g(v);var n=require("./chunk-SDBEMUFI.cjs"),x=require("./chunk-IPGPEAAC.cjs"),j=require("./chunk-BRCEIAA5.cjs"),i=require("./chunk-XDVVR3XU.cjs"),u=require("./chunk-W6Y3AJXU.cjs"),y=require("./chunk-CFYFLVIA.cjs");function p(s){s.addHelpText("after",`
Examples:
  gsh version
  gsh version -o json`).action(async function(){let o={gsh:i.a,node:process.versions.node,platform:`${process.platform}-${process.arch}`};await(0,n.b)(this,"print the versions of gsh and Node.js and the platform",async()=>o,()=>`gsh ${o.gsh}
node ${o.node}
platform ${o.platform}
`)})}var m={version:[]};0&&(module.exports={operations,register});
