import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
import{a as u,b as v,c as S,d as T,e as b,f as $,h as R}from"./chunk-ORAHVLJS.js";import{a as h}from"./chunk-J3CTNU3K.js";import{a as g,b as w}from"./chunk-JAQXNK3U.js";import{e as y}from"./chunk-6R66A7RU.js";import"./chunk-U3JVDUF4.js";import"./chunk-VUJ24OU6.js";import"./chunk-AUOPXIFQ.js";import"./chunk-4SZEPXM2.js";import{c as f}from"./chunk-Z7ELYLCT.js";import"./chunk-AHPEUW3P.js";import"./chunk-UWZHIWWZ.js";import"./chunk-IKJWQ5AS.js";import"./chunk-24476HIN.js";import"./chunk-5NUSP5DK.js";import{c as m}from"./chunk-H6WJT4CN.js";import"./chunk-AFG6BZBD.js";import{randomBytes as O}from"node:crypto";import{readFileSync as x}from"node:fs";import{basename as I}from"node:path";var K={"files put":["POST /servers/{server_id}/files/upload"],"files get":["POST /servers/{server_id}/files/download"]};async function E(r,n){let e=g(n,r.env),t=await r.client();return{client:t,serverId:await w(t,e)}}function C(r,n){let e=`gsh${O(12).toString("hex")}`,t=r.replace(/["\r\n\\]/g,"_"),i=`--${e}\r
Content-Disposition: form-data; name="files"; filename="${t}"\r
Content-Type: application/octet-stream\r
\r
`;return{body:Buffer.concat([Buffer.from(i),n,Buffer.from(`\r
--${e}--\r
`)]),contentType:`multipart/form-data; boundary=${e}`}}function A(r){r.command("put").description("Upload a local file of any size into a server directory (signed upload URL, then the bytes)").argument("<file>","local file to upload").option("-s, --server <id|name>","server id or name (default: $GSH_SERVER)").option("--dir <directory>","server directory to upload into","/").option("--name <filename>","file name on the server (default: the local name)").addHelpText("after",`
Example:
  gsh files put world.zip -s lobby --dir /backups
  gsh files put world.zip -s lobby --dry-run

API:
  POST /servers/{server_id}/files/upload, then POST <signed url>?directory=<dir> (multipart)
`).action(async function(n){await y(this,async e=>{let t=this.opts(),i;try{i=x(n)}catch(o){throw new m(`cannot read ${n}: ${o.message}`)}let{client:s,serverId:c}=await E(e,t.server),a=await f({method:"POST",path:`/servers/${encodeURIComponent(c)}/files/upload`,body:{},idempotencyKey:e.globals.idempotencyKey}),p=C(t.name??I(n),i),d=o=>({method:"POST",path:o,query:{directory:t.dir},rawBody:p.body,headers:{"content-type":p.contentType}});return e.submit({requests:[a,d(u)],then:[]},async()=>{let o=await s.request(a),l=await s.request(d(b(o.body?.data)));await e.out.show(l.body?.data??l.body)})})}),r.command("get").description("Download a server file (signed download URL, then the bytes) to stdout or --to FILE|DIR|-").argument("<path>","absolute path of the file on the server").option("-s, --server <id|name>","server id or name (default: $GSH_SERVER)").option("--to <file|dir|->","write to this file (atomically), into this directory, or - for stdout (even binary content on a terminal)").option("--clobber","replace an existing file").addHelpText("after",`
Example:
  gsh files get /logs/latest.log -s lobby --to latest.log
  gsh files get /world.zip -s lobby --to ./backups/ --clobber

API:
  POST /servers/{server_id}/files/download, then GET <signed url>
`).action(async function(n){await y(this,async e=>{let t=this.opts(),i=S(t.to,t.clobber===!0)??{kind:"stdout",explicit:!1},{client:s,serverId:c}=await E(e,t.server),a=await f({method:"POST",path:`/servers/${encodeURIComponent(c)}/files/download`,body:{file:n},idempotencyKey:e.globals.idempotencyKey}),p=[h("transfer",T(i,t.to??"-"))];return e.submit({requests:[a,v(u)],then:p},async()=>{let d=await s.request(a),o=await R(e,s,b(d.body?.data),i,{size:$(d.body?.data),fallbackName:I(n)||"download",binaryOnTerminal:l=>new m(`${n} is binary${l!==void 0?` (${l} bytes)`:""}; not writing it to the terminal`,`Save it with --to FILE, or redirect: gsh files get ${n} -s ${t.server??c} > FILE (--to - writes to the terminal anyway).`)});o.path&&e.note(`Saved ${o.bytes} bytes to ${o.path}`)})})})}export{C as multipartBody,K as operations,A as register};
