var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var c=Object.create;var s=Object.defineProperty;var p=Object.getOwnPropertyDescriptor;var f=Object.getOwnPropertyNames;var l=Object.getPrototypeOf,d=Object.prototype.hasOwnProperty;var h=(e,r)=>{for(var o in r)s(e,o,{get:r[o],enumerable:!0})},i=(e,r,o,a)=>{if(r&&typeof r=="object"||typeof r=="function")for(let t of f(r))!d.call(e,t)&&t!==o&&s(e,t,{get:()=>r[t],enumerable:!(a=p(r,t))||a.enumerable});return e};var y=(e,r,o)=>(o=e!=null?c(l(e)):{},i(r||!e||!e.__esModule?s(o,"default",{value:e,enumerable:!0}):o,e)),u=e=>i(s({},"__esModule",{value:!0}),e);var v={};h(v,{register:()=>m});module.exports=u(v);var n=require("./chunk-SDBEMUFI.cjs"),q=require("./chunk-IPGPEAAC.cjs"),j=require("./chunk-BRCEIAA5.cjs"),x=require("./chunk-W6Y3AJXU.cjs"),E=require("./chunk-CFYFLVIA.cjs"),w=`
JSON (--json, or -o json; --jq and -o yaml work too): an array with one entry per leaf command:
  {command, summary, operations: [{method, path}], scope, permission,
   arguments: [{name, required}], options: [{flags, required, choices}], example}
Paths are written as in the contract (/servers/{server_id}/files). A required --server may
also come from GSH_SERVER.

Examples:
  $ gsh reference | less
  $ gsh reference --jq '.[] | select(.scope == "servers:files:write") | .command'
`;function m(e,r){e.addHelpText("after",w).action(async function(){let[o,{referenceEntries:a,formatReference:t}]=await Promise.all([r.docTree(),Promise.resolve().then(()=>y(require("./reference-2RORHTCC.cjs")))]);await(0,n.b)(this,"print every command with its operations",async()=>a(o),()=>t(o))})}0&&(module.exports={register});
