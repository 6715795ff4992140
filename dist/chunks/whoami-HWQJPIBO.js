import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
import{f as t}from"./chunk-M6N4NJHX.js";import"./chunk-CQ3DQR6A.js";import"./chunk-6HAPON75.js";import"./chunk-YOPJNZJP.js";import"./chunk-SLTFDO27.js";import"./chunk-4HZR5RN7.js";import"./chunk-4NOPMWZG.js";import"./chunk-OVIZMDI4.js";import"./chunk-GHB64OPJ.js";import"./chunk-NHAKVLUE.js";import"./chunk-JPBGQWYY.js";function i(e){e.addHelpText("after",`
Shows the account, the key's name, scopes and rate limit (or the agent token's expiry), the base
URL, and which credential was used and why (--profile, GSH_API_KEY, the current profile\u2026).
The same as gsh auth status.

Examples:
  gsh whoami
  gsh whoami --jq .account.username
  gsh --profile ci whoami -o json`).action(async function(){let{authStatus:a}=await import("./auth-ZB6TK7JP.js");await t(this,a)})}var s={whoami:["GET /me"]};export{s as operations,i as register};
