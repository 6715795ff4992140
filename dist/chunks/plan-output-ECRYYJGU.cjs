var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var d=Object.defineProperty;var a=Object.getOwnPropertyDescriptor;var f=Object.getOwnPropertyNames;var m=Object.prototype.hasOwnProperty;var w=(t,e)=>{for(var i in e)d(t,i,{get:e[i],enumerable:!0})},c=(t,e,i,s)=>{if(e&&typeof e=="object"||typeof e=="function")for(let r of f(e))!m.call(t,r)&&r!==i&&d(t,r,{get:()=>e[r],enumerable:!(s=a(e,r))||s.enumerable});return t};var h=t=>c(d({},"__esModule",{value:!0}),t);var b={};w(b,{printPlan:()=>u});module.exports=h(b);var n=require("./chunk-K3J6TRJM.cjs"),g=require("./chunk-CFYFLVIA.cjs");async function u(t,e){let i=e.requests.length?await t.client():void 0,s=e.requests.map(o=>i.describe(o));if(t.format!=="table"){let o={requests:s,then:e.then};t.format==="jsonl"?t.io.stdout.write(`${JSON.stringify(o)}
`):await t.out.show(o);return}let r=t.io.stdout,l=t.io.color;s.length===0&&r.write(n.f.dim(`No requests would be sent.
`,l));for(let o of s)r.write(`${n.f.bold(o.method,l)} ${o.url}
`),o.body!==void 0&&r.write(`${y(typeof o.body=="string"?o.body:JSON.stringify(o.body,null,2))}
`);for(let o of e.then)r.write(`${n.f.dim("then:",l)} ${o.description}
`);t.note("Dry run: nothing was sent.")}function y(t){return t.replace(/^/gm,"  ")}0&&(module.exports={printPlan});
