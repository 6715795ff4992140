import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
import{f as i}from"./chunk-4SZEPXM2.js";import"./chunk-AFG6BZBD.js";async function c(n,e){let u=e.requests.length?await n.client():void 0,s=e.requests.map(t=>u.describe(t));if(n.format!=="table"){let t={requests:s,then:e.then};n.format==="jsonl"?n.io.stdout.write(`${JSON.stringify(t)}
`):await n.out.show(t);return}let o=n.io.stdout,r=n.io.color;s.length===0&&o.write(i.dim(`No requests would be sent.
`,r));for(let t of s)o.write(`${i.bold(t.method,r)} ${t.url}
`),t.body!==void 0&&o.write(`${d(typeof t.body=="string"?t.body:JSON.stringify(t.body,null,2))}
`);for(let t of e.then)o.write(`${i.dim("then:",r)} ${t.description}
`);n.note("Dry run: nothing was sent.")}function d(n){return n.replace(/^/gm,"  ")}export{c as printPlan};
