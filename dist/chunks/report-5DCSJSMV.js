import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
import{c as n}from"./chunk-YOPJNZJP.js";import{a as u,b as l,d as i}from"./chunk-K5AYIYH2.js";import"./chunk-JPBGQWYY.js";function p(t,s,r){if(!(t instanceof l)){let e=t;return r.json?s.stderr.write(`${JSON.stringify({error:{code:"internal",message:String(e?.message??e)}})}
`):s.stderr.write(`${n.red("error:",s.colorErr)} ${String(e?.message??e)}
`),r.debug&&e?.stack?s.stderr.write(`${e.stack}
`):r.json||s.stderr.write(`This is a bug in gsh; --debug shows where it happened.
`),u.error}if(r.json){let e={message:t.message,exit_code:t.exitCode};return t instanceof i&&Object.assign(e,{code:t.code,status:t.status,request_id:t.requestId,errors:t.fieldErrors.length?t.fieldErrors:void 0,action_url:t.actionUrl,payment:t.body.payment,approval:t.body.approval}),t.hint&&(e.hint=t.hint),s.stderr.write(`${JSON.stringify({error:e})}
`),t.exitCode}let o=s.colorErr,f=`${n.red("error:",o)} ${t.message}`;if(t instanceof i){let e=[t.code,`HTTP ${t.status}`,t.requestId?`request_id ${t.requestId}`:""].filter(Boolean);f+=n.dim(` (${e.join(", ")})`,o)}if(s.stderr.write(`${f}
`),t instanceof i){for(let a of t.fieldErrors)s.stderr.write(`  ${n.bold(a.field,o)}: ${a.message}
`);t.actionUrl&&s.stderr.write(`  Open: ${t.actionUrl}
`);let e=t.body.payment;if(e&&typeof e=="object")for(let[a,d]of Object.entries(e))typeof d=="string"&&/^https?:/.test(d)&&s.stderr.write(`  ${a}: ${d}
`);t.retryAfter!==void 0&&t.status===429&&s.stderr.write(`  Retry after ${t.retryAfter} s.
`)}let c=t.hint??(t instanceof i?g(t):void 0);return c&&s.stderr.write(`${n.dim(c,o)}
`),t.exitCode}function g(t){if(t.status===401)return"The credential was refused: run `gsh auth login`, or check GSH_API_KEY / GSH_TOKEN.";if(t.status===403&&t.code==="forbidden")return"The key lacks the scope or server permission this needs; `gsh auth status` shows its scopes.";if(t.status===429)return"Rate limited after retries; try again later or raise the key's limit.";if(t.status>=500)return"The service kept failing after retries; try again later (--debug shows each attempt)."}export{p as reportError};
