var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var n=Object.create;var a=Object.defineProperty;var c=Object.getOwnPropertyDescriptor;var u=Object.getOwnPropertyNames;var w=Object.getPrototypeOf,l=Object.prototype.hasOwnProperty;var d=(t,i)=>{for(var o in i)a(t,o,{get:i[o],enumerable:!0})},m=(t,i,o,e)=>{if(i&&typeof i=="object"||typeof i=="function")for(let r of u(i))!l.call(t,r)&&r!==o&&a(t,r,{get:()=>i[r],enumerable:!(e=c(i,r))||e.enumerable});return t};var f=(t,i,o)=>(o=t!=null?n(w(t)):{},m(i||!t||!t.__esModule?a(o,"default",{value:t,enumerable:!0}):o,t)),g=t=>m(a({},"__esModule",{value:!0}),t);var x={};d(x,{operations:()=>h,register:()=>s});module.exports=g(x);var p=require("./chunk-HJNXBVXV.cjs"),E=require("./chunk-YNOE4ESL.cjs"),S=require("./chunk-2GUTWAN4.cjs"),T=require("./chunk-BRCEIAA5.cjs"),j=require("./chunk-WK2PKF7C.cjs"),k=require("./chunk-TBKMB3B6.cjs"),G=require("./chunk-GBSKUCZH.cjs"),H=require("./chunk-4PIN4CT5.cjs"),_=require("./chunk-I2AMOZ5V.cjs"),b=require("./chunk-WHT3DIX3.cjs"),q=require("./chunk-XDVVR3XU.cjs"),v=require("./chunk-7P5KBIU5.cjs"),A=require("./chunk-IH6FO5SD.cjs"),I=require("./chunk-KKFM44VO.cjs"),K=require("./chunk-ZAU4MFPP.cjs"),L=require("./chunk-UX4EDS6Q.cjs"),P=require("./chunk-XVT4QZTK.cjs"),R=require("./chunk-MK6WCZOG.cjs"),U=require("./chunk-W6Y3AJXU.cjs"),Y=require("./chunk-WF43ZFLW.cjs"),z=require("./chunk-CFYFLVIA.cjs");function s(t){t.addHelpText("after",`
Shows the account, the key's name, scopes and rate limit (or the agent token's expiry), the base
URL, and which credential was used and why (--profile, GSH_API_KEY, the current profile\u2026).
The same as gsh auth status.

Examples:
  gsh whoami
  gsh whoami --jq .account.username
  gsh --profile ci whoami -o json`).action(async function(){let{authStatus:i}=await Promise.resolve().then(()=>f(require("./auth-NJMGWOAE.cjs")));await(0,p.c)(this,i)})}var h={whoami:["GET /me"]};0&&(module.exports={operations,register});
