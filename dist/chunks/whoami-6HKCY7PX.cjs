var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var n=Object.create;var e=Object.defineProperty;var c=Object.getOwnPropertyDescriptor;var u=Object.getOwnPropertyNames;var w=Object.getPrototypeOf,l=Object.prototype.hasOwnProperty;var d=(t,i)=>{for(var o in i)e(t,o,{get:i[o],enumerable:!0})},s=(t,i,o,r)=>{if(i&&typeof i=="object"||typeof i=="function")for(let a of u(i))!l.call(t,a)&&a!==o&&e(t,a,{get:()=>i[a],enumerable:!(r=c(i,a))||r.enumerable});return t};var f=(t,i,o)=>(o=t!=null?n(w(t)):{},s(i||!t||!t.__esModule?e(o,"default",{value:t,enumerable:!0}):o,t)),g=t=>s(e({},"__esModule",{value:!0}),t);var x={};d(x,{operations:()=>h,register:()=>p});module.exports=g(x);var m=require("./chunk-FJT7TTXL.cjs"),E=require("./chunk-44MPBDLM.cjs"),S=require("./chunk-DO7A5B4D.cjs"),T=require("./chunk-NLRJ6WUU.cjs"),j=require("./chunk-OUKZYLKD.cjs"),k=require("./chunk-5NVEVDRY.cjs"),G=require("./chunk-DQJIWCIR.cjs"),H=require("./chunk-UE4MXNWD.cjs"),_=require("./chunk-T62L3IQ5.cjs"),b=require("./chunk-G6Q55UVW.cjs"),q=require("./chunk-TSQADIZU.cjs"),v=require("./chunk-VJBIVGRP.cjs"),A=require("./chunk-HF5LC6UN.cjs"),I=require("./chunk-L34UKMEU.cjs"),K=require("./chunk-CFYFLVIA.cjs");function p(t){t.addHelpText("after",`
Shows the account, the key's name, scopes and rate limit (or the agent token's expiry), the base
URL, and which credential was used and why (--profile, GSH_API_KEY, the current profile\u2026).
The same as gsh auth status.

Examples:
  gsh whoami
  gsh whoami --jq .account.username
  gsh --profile ci whoami -o json`).action(async function(){let{authStatus:i}=await Promise.resolve().then(()=>f(require("./auth-3NAMN3GQ.cjs")));await(0,m.e)(this,i)})}var h={whoami:["GET /me"]};0&&(module.exports={operations,register});
