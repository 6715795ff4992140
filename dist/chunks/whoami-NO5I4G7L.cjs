var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var n=Object.create;var e=Object.defineProperty;var c=Object.getOwnPropertyDescriptor;var u=Object.getOwnPropertyNames;var w=Object.getPrototypeOf,l=Object.prototype.hasOwnProperty;var d=(t,i)=>{for(var o in i)e(t,o,{get:i[o],enumerable:!0})},m=(t,i,o,r)=>{if(i&&typeof i=="object"||typeof i=="function")for(let a of u(i))!l.call(t,a)&&a!==o&&e(t,a,{get:()=>i[a],enumerable:!(r=c(i,a))||r.enumerable});return t};var f=(t,i,o)=>(o=t!=null?n(w(t)):{},m(i||!t||!t.__esModule?e(o,"default",{value:t,enumerable:!0}):o,t)),g=t=>m(e({},"__esModule",{value:!0}),t);var x={};d(x,{operations:()=>h,register:()=>p});module.exports=g(x);var s=require("./chunk-AFSHPXIZ.cjs"),E=require("./chunk-JYCRPCEY.cjs"),S=require("./chunk-EBV7MZ5B.cjs"),T=require("./chunk-7R3LTQFJ.cjs"),j=require("./chunk-E7ZQZDJK.cjs"),k=require("./chunk-2VOFCX7S.cjs"),G=require("./chunk-JPUKNXZO.cjs"),H=require("./chunk-T62L3IQ5.cjs"),_=require("./chunk-G6Q55UVW.cjs"),b=require("./chunk-A47OLFUX.cjs"),q=require("./chunk-OUKZYLKD.cjs"),v=require("./chunk-5NVEVDRY.cjs"),A=require("./chunk-I4PIUIPT.cjs"),I=require("./chunk-VJBIVGRP.cjs"),K=require("./chunk-HF5LC6UN.cjs"),L=require("./chunk-I2YUVHHP.cjs"),P=require("./chunk-CFYFLVIA.cjs");function p(t){t.addHelpText("after",`
Shows the account, the key's name, scopes and rate limit (or the agent token's expiry), the base
URL, and which credential was used and why (--profile, GSH_API_KEY, the current profile\u2026).
The same as gsh auth status.

Examples:
  gsh whoami
  gsh whoami --jq .account.username
  gsh --profile ci whoami -o json`).action(async function(){let{authStatus:i}=await Promise.resolve().then(()=>f(require("./auth-LBJEGLIY.cjs")));await(0,s.e)(this,i)})}var h={whoami:["GET /me"]};0&&(module.exports={operations,register});
