import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
import{a as s,b as l,c as u}from"./chunk-H6WJT4CN.js";import"./chunk-AFG6BZBD.js";var f;function p(){return f??=import("./dist-GCLIMHMN.js").then(n=>n.default),f}function g(n){return(n instanceof Error?n.message:String(n)).split(`
`).filter(t=>t.trim()!==""&&!/^jq: \d+ compile errors?$/.test(t)).join(" ").replace(/^jq: error(?: \(at [^)]*\))?: /,"")}var c=n=>/compile error/.test(n instanceof Error?n.message:String(n));async function m(n){let r=await p(),t=e=>new u(`--jq: ${g(e)}`,"See the jq manual for the language: https://jqlang.org/manual/v1.7/"),o=await r.raw("null",`def __gsh_compile_check: (
${n}
); empty | __gsh_compile_check`,["-n"]).then(()=>{},e=>e);if(o!==void 0){if(!c(o))throw o;let e=await r.raw("null",n,["-n"]).then(()=>{},a=>a);throw t(e!==void 0&&c(e)?e:o)}return{async apply(e){let a;try{a=await r.raw(JSON.stringify(e??null),n,["-c"])}catch(i){throw new l(`jq: ${g(i)}`,s.error)}return a.split(`
`).filter(i=>i!=="").map(i=>JSON.parse(i))}}}function d(n,r){return n.map(t=>`${typeof t=="string"?t:JSON.stringify(t,null,r?2:void 0)}
`).join("")}export{m as compileJq,d as renderJq};
