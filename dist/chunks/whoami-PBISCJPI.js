import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
import{e as t}from"./chunk-6R66A7RU.js";import"./chunk-U3JVDUF4.js";import"./chunk-VUJ24OU6.js";import"./chunk-AUOPXIFQ.js";import"./chunk-4SZEPXM2.js";import"./chunk-Z7ELYLCT.js";import"./chunk-AHPEUW3P.js";import"./chunk-UWZHIWWZ.js";import"./chunk-IKJWQ5AS.js";import"./chunk-24476HIN.js";import"./chunk-5NUSP5DK.js";import"./chunk-H6WJT4CN.js";import"./chunk-AFG6BZBD.js";function i(e){e.addHelpText("after",`
Shows the account, the key's name, scopes and rate limit (or the agent token's expiry), the base
URL, and which credential was used and why (--profile, GSH_API_KEY, the current profile\u2026).
The same as gsh auth status.

Examples:
  gsh whoami
  gsh whoami --jq .account.username
  gsh --profile ci whoami -o json`).action(async function(){let{authStatus:a}=await import("./auth-UXEY6ZBU.js");await t(this,a)})}var s={whoami:["GET /me"]};export{s as operations,i as register};
