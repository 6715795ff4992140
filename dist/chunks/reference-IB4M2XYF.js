import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
import{b as r}from"./chunk-N7KA3ZPD.js";import"./chunk-J3CTNU3K.js";import"./chunk-5NUSP5DK.js";import"./chunk-H6WJT4CN.js";import"./chunk-AFG6BZBD.js";var n=`
JSON (--json, or -o json; --jq and -o yaml work too): an array with one entry per leaf command:
  {command, summary, operations: [{method, path}], scope, permission,
   arguments: [{name, required}], options: [{flags, required, choices}], example}
Paths are written as in the contract (/servers/{server_id}/files). A required --server may
also come from GSH_SERVER.

Examples:
  $ gsh reference | less
  $ gsh reference --jq '.[] | select(.scope == "servers:files:write") | .command'
`;function m(o){o.addHelpText("after",n).action(async function(){let[{loadDocTree:a},{referenceEntries:t,formatReference:s}]=await Promise.all([import("./command-tree-FMX4Q3SE.js"),import("./reference-2NQ2RNYR.js")]),e=await a();await r(this,"print every command with its operations",async()=>t(e),()=>s(e))})}export{m as register};
