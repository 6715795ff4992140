import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
var i=class{constructor(e){this.text=e;for(let t=e.indexOf(`
`);t!==-1;t=e.indexOf(`
`,t+1))this.starts.push(t+1)}text;starts=[0];position(e){let t=Math.max(0,Math.min(e,this.text.length)),s=0,n=this.starts.length-1;for(;s<n;){let r=s+n+1>>1;(this.starts[r]??0)<=t?s=r:n=r-1}return{line:s+1,column:t-(this.starts[s]??0)+1}}lineText(e){let t=this.starts[e-1];if(t===void 0)return"";let s=this.starts[e],n=s===void 0?this.text.length:s-1;return this.text.slice(t,n).replace(/\r$/,"")}};export{i as a};
