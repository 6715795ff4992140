var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var n=Object.create;var e=Object.defineProperty;var c=Object.getOwnPropertyDescriptor;var u=Object.getOwnPropertyNames;var w=Object.getPrototypeOf,l=Object.prototype.hasOwnProperty;var d=(t,i)=>{for(var o in i)e(t,o,{get:i[o],enumerable:!0})},m=(t,i,o,r)=>{if(i&&typeof i=="object"||typeof i=="function")for(let a of u(i))!l.call(t,a)&&a!==o&&e(t,a,{get:()=>i[a],enumerable:!(r=c(i,a))||r.enumerable});return t};var f=(t,i,o)=>(o=t!=null?n(w(t)):{},m(i||!t||!t.__esModule?e(o,"default",{value:t,enumerable:!0}):o,t)),g=t=>m(e({},"__esModule",{value:!0}),t);var x={};d(x,{operations:()=>h,register:()=>p});module.exports=g(x);var s=require("./chunk-D4VGUKUT.cjs"),E=require("./chunk-R4BBWF6O.cjs"),S=require("./chunk-BII4X7IL.cjs"),T=require("./chunk-LQGWE44N.cjs"),j=require("./chunk-XPI5MRBA.cjs"),k=require("./chunk-Y34E6ZZV.cjs"),G=require("./chunk-Q7DYZY5P.cjs"),H=require("./chunk-G6Q55UVW.cjs"),_=require("./chunk-P2762BRR.cjs"),b=require("./chunk-A47OLFUX.cjs"),q=require("./chunk-OUKZYLKD.cjs"),v=require("./chunk-5NVEVDRY.cjs"),A=require("./chunk-ZMJO2HXW.cjs"),I=require("./chunk-VJBIVGRP.cjs"),K=require("./chunk-623VEX4U.cjs"),L=require("./chunk-OJV5QQQO.cjs"),P=require("./chunk-CFYFLVIA.cjs");function p(t){t.addHelpText("after",`
Shows the account, the key's name, scopes and rate limit (or the agent token's expiry), the base
URL, and which credential was used and why (--profile, GSH_API_KEY, the current profile\u2026).
The same as gsh auth status.

Examples:
  gsh whoami
  gsh whoami --jq .account.username
  gsh --profile ci whoami -o json`).action(async function(){let{authStatus:i}=await Promise.resolve().then(()=>f(require("./auth-RQ77IC3E.cjs")));await(0,s.e)(this,i)})}var h={whoami:["GET /me"]};0&&(module.exports={operations,register});
