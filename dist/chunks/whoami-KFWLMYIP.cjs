var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var n=Object.create;var e=Object.defineProperty;var c=Object.getOwnPropertyDescriptor;var u=Object.getOwnPropertyNames;var w=Object.getPrototypeOf,l=Object.prototype.hasOwnProperty;var d=(t,a)=>{for(var i in a)e(t,i,{get:a[i],enumerable:!0})},s=(t,a,i,r)=>{if(a&&typeof a=="object"||typeof a=="function")for(let o of u(a))!l.call(t,o)&&o!==i&&e(t,o,{get:()=>a[o],enumerable:!(r=c(a,o))||r.enumerable});return t};var f=(t,a,i)=>(i=t!=null?n(w(t)):{},s(a||!t||!t.__esModule?e(i,"default",{value:t,enumerable:!0}):i,t)),g=t=>s(e({},"__esModule",{value:!0}),t);var x={};d(x,{operations:()=>h,register:()=>p});module.exports=g(x);var m=require("./chunk-T3CGWRR5.cjs"),E=require("./chunk-Y6JEJIOL.cjs"),S=require("./chunk-CJ5LYOGI.cjs"),T=require("./chunk-NLRJ6WUU.cjs"),j=require("./chunk-K3J6TRJM.cjs"),k=require("./chunk-ZY3ECSGU.cjs"),G=require("./chunk-T62L3IQ5.cjs"),H=require("./chunk-G6Q55UVW.cjs"),_=require("./chunk-B63FMVLD.cjs"),b=require("./chunk-VJBIVGRP.cjs"),q=require("./chunk-HF5LC6UN.cjs"),v=require("./chunk-L34UKMEU.cjs"),A=require("./chunk-CFYFLVIA.cjs");function p(t){t.addHelpText("after",`
Shows the account, the key's name, scopes and rate limit (or the agent token's expiry), the base
URL, and which credential was used and why (--profile, GSH_API_KEY, the current profile\u2026).
The same as gsh auth status.

Examples:
  gsh whoami
  gsh whoami --jq .account.username
  gsh --profile ci whoami -o json`).action(async function(){let{authStatus:a}=await Promise.resolve().then(()=>f(require("./auth-ZHLJUJMY.cjs")));await(0,m.e)(this,a)})}var h={whoami:["GET /me"]};0&&(module.exports={operations,register});
