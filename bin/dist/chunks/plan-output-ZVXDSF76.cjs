var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var d=Object.defineProperty;var a=Object.getOwnPropertyDescriptor;var f=Object.getOwnPropertyNames;var m=Object.prototype.hasOwnProperty;var w=(t,o)=>{for(var i in o)d(t,i,{get:o[i],enumerable:!0})},c=(t,o,i,s)=>{if(o&&typeof o=="object"||typeof o=="function")for(let r of f(o))!m.call(t,r)&&r!==i&&d(t,r,{get:()=>o[r],enumerable:!(s=a(o,r))||s.enumerable});return t};var h=t=>c(d({},"__esModule",{value:!0}),t);var y={};w(y,{printPlan:()=>u});module.exports=h(y);var n=require("./chunk-OUKZYLKD.cjs"),g=require("./chunk-5NVEVDRY.cjs"),$=require("./chunk-CFYFLVIA.cjs");async function u(t,o){let i=o.requests.length?await t.client():void 0,s=o.requests.map(e=>i.describe(e));if(t.format!=="table"){let e={requests:s,then:o.then};t.format==="jsonl"?t.io.stdout.write(`${JSON.stringify(e)}
`):await t.out.show(e);return}let r=t.io.stdout,l=t.io.color;s.length===0&&r.write(n.f.dim(`No requests would be sent.
`,l));for(let e of s)r.write(`${n.f.bold(e.method,l)} ${e.url}
`),e.body!==void 0&&r.write(`${p(typeof e.body=="string"?e.body:JSON.stringify(e.body,null,2))}
`);for(let e of o.then)r.write(`${n.f.dim("then:",l)} ${e.description}
`);t.note("Dry run: nothing was sent.")}function p(t){return t.replace(/^/gm,"  ")}0&&(module.exports={printPlan});
