var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var p=Object.create;var s=Object.defineProperty;var l=Object.getOwnPropertyDescriptor;var f=Object.getOwnPropertyNames;var d=Object.getPrototypeOf,h=Object.prototype.hasOwnProperty;var w=(e,r)=>{for(var o in r)s(e,o,{get:r[o],enumerable:!0})},i=(e,r,o,t)=>{if(r&&typeof r=="object"||typeof r=="function")for(let a of f(r))!h.call(e,a)&&a!==o&&s(e,a,{get:()=>r[a],enumerable:!(t=l(r,a))||t.enumerable});return e};var n=(e,r,o)=>(o=e!=null?p(d(e)):{},i(r||!e||!e.__esModule?s(o,"default",{value:e,enumerable:!0}):o,e)),y=e=>i(s({},"__esModule",{value:!0}),e);var v={};w(v,{register:()=>c});module.exports=y(v);var m=require("./chunk-YQECI3T5.cjs"),q=require("./chunk-IPGPEAAC.cjs"),j=require("./chunk-623VEX4U.cjs"),x=require("./chunk-OJV5QQQO.cjs"),E=require("./chunk-CFYFLVIA.cjs"),u=`
JSON (--json, or -o json; --jq and -o yaml work too): an array with one entry per leaf command:
  {command, summary, operations: [{method, path}], scope, permission,
   arguments: [{name, required}], options: [{flags, required, choices}], example}
Paths are written as in the contract (/servers/{server_id}/files). A required --server may
also come from GSH_SERVER.

Examples:
  $ gsh reference | less
  $ gsh reference --jq '.[] | select(.scope == "servers:files:write") | .command'
`;function c(e){e.addHelpText("after",u).action(async function(){let[{loadDocTree:r},{referenceEntries:o,formatReference:t}]=await Promise.all([Promise.resolve().then(()=>n(require("./command-tree-XWLUCHAJ.cjs"))),Promise.resolve().then(()=>n(require("./reference-GPT4IA5V.cjs")))]),a=await r();await(0,m.b)(this,"print every command with its operations",async()=>o(a),()=>t(a))})}0&&(module.exports={register});
