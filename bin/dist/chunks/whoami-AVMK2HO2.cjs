var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var n=Object.create;var r=Object.defineProperty;var c=Object.getOwnPropertyDescriptor;var u=Object.getOwnPropertyNames;var w=Object.getPrototypeOf,l=Object.prototype.hasOwnProperty;var d=(t,i)=>{for(var o in i)r(t,o,{get:i[o],enumerable:!0})},m=(t,i,o,e)=>{if(i&&typeof i=="object"||typeof i=="function")for(let a of u(i))!l.call(t,a)&&a!==o&&r(t,a,{get:()=>i[a],enumerable:!(e=c(i,a))||e.enumerable});return t};var f=(t,i,o)=>(o=t!=null?n(w(t)):{},m(i||!t||!t.__esModule?r(o,"default",{value:t,enumerable:!0}):o,t)),g=t=>m(r({},"__esModule",{value:!0}),t);var x={};d(x,{operations:()=>h,register:()=>s});module.exports=g(x);var p=require("./chunk-2ZSRUHHK.cjs"),E=require("./chunk-SHBSYJAC.cjs"),S=require("./chunk-JYYRZT3Y.cjs"),T=require("./chunk-BP6JSA37.cjs"),j=require("./chunk-BRCEIAA5.cjs"),k=require("./chunk-TBKMB3B6.cjs"),G=require("./chunk-OTPXSP2U.cjs"),H=require("./chunk-YGAI7REA.cjs"),_=require("./chunk-IRGJJNXL.cjs"),b=require("./chunk-WWVJ2PT3.cjs"),q=require("./chunk-I2AMOZ5V.cjs"),v=require("./chunk-ZWLMQYAH.cjs"),A=require("./chunk-XDVVR3XU.cjs"),I=require("./chunk-SYMHG674.cjs"),K=require("./chunk-WS7NH226.cjs"),L=require("./chunk-RRZYPMTD.cjs"),P=require("./chunk-T7CLMXQW.cjs"),R=require("./chunk-CFYFLVIA.cjs");function s(t){t.addHelpText("after",`
Shows the account, the key's name, scopes and rate limit (or the agent token's expiry), the base
URL, and which credential was used and why (--profile, GSH_API_KEY, the current profile\u2026).
The same as gsh auth status.

Examples:
  gsh whoami
  gsh whoami --jq .account.username
  gsh --profile ci whoami -o json`).action(async function(){let{authStatus:i}=await Promise.resolve().then(()=>f(require("./auth-SHGJTHNJ.cjs")));await(0,p.c)(this,i)})}var h={whoami:["GET /me"]};0&&(module.exports={operations,register});
