var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var w=Object.defineProperty;var I=Object.getOwnPropertyDescriptor;var K=Object.getOwnPropertyNames;var R=Object.prototype.hasOwnProperty;var W=(t,n)=>{for(var f in n)w(t,f,{get:n[f],enumerable:!0})},x=(t,n,f,s)=>{if(n&&typeof n=="object"||typeof n=="function")for(let i of K(n))!R.call(t,i)&&i!==f&&w(t,i,{get:()=>n[i],enumerable:!(s=I(n,i))||s.enumerable});return t};var E=t=>x(w({},"__esModule",{value:!0}),t);var O={};W(O,{MARKDOWN_LIMIT:()=>y,diffMarkdown:()=>L});module.exports=E(O);var a=require("./chunk-SHDDIUPT.cjs"),T=require("./chunk-G3FEQUY2.cjs"),q=require("./chunk-B3DYZB5G.cjs"),d=require("./chunk-JJH5GTJ4.cjs"),B=require("./chunk-TBKMB3B6.cjs"),F=require("./chunk-GBSKUCZH.cjs"),G=require("./chunk-4PIN4CT5.cjs"),H=require("./chunk-I2AMOZ5V.cjs"),J=require("./chunk-5EWFJGKJ.cjs"),Q=require("./chunk-B6DTPJ43.cjs"),U=require("./chunk-CFYFLVIA.cjs"),y=65e3,A=120,b=t=>t.length>A?`${t.slice(0,A-1)}\u2026`:t,D=t=>b(t==null?"-":Array.isArray(t)?t.map(a.b).join(", "):(0,a.b)(t)),m=(t,n,f=`${n}s`)=>`${t} ${t===1?n:f}`;function L(t,n=s=>s,f=y){let s=e=>n(e.server_name??e.server_id??"?"),i=t.filter(e=>e.in_sync===!1),g=t.filter(e=>e.error!==void 0),h=new Map(a.f.map(e=>[e,[]])),_=new Map(a.f.map(e=>[e,new Set]));for(let e of i){for(let r of e.changes??[]){let o=`${r.action}${r.held?" (held)":""}`;for(let l of r.fields)h.get(r.kind)?.push([s(e),n(l.path),n(D(l.live)),n(D(l.declared)),l.clamped?`${o} (clamped)`:o]);_.get(r.kind)?.add(s(e))}for(let r of e.not_compared??[]){let o=a.f.find(l=>r.startsWith(l))??"";h.get(o)?.push([s(e),n(r),"(write-only)","(masked)","not compared"])}}let k=[...h.values()].reduce((e,r)=>e+r.filter(o=>o[4]!=="not compared").length,0),N=a.f.filter(e=>h.get(e).some(r=>r[4]!=="not compared")).map(e=>`${e} ${h.get(e).filter(r=>r[4]!=="not compared").length}`),c=`### gsh config diff: ${i.length?`${m(i.length,"server")} of ${t.length} ${i.length===1?"differs":"differ"}`:`all ${m(t.length,"server")} in sync`}${g.length?`, ${g.length} could not be read`:""}

`;k&&(c+=`${m(k,"difference")}: ${N.join(", ")}. \`gsh config apply\` makes them; a clamped value needs the file changed instead.

`);let p=new Map,u=new Set,M=g.length?`#### Not read

${g.slice(0,50).map(e=>`- ${(0,d.i)(s(e))}: ${(0,d.i)(n(b(e.error.message)))}`).join(`
`)}
${g.length>50?`- and ${g.length-50} more
`:""}
`:"",C=400+a.f.join("").length*2+M.length,v=[];for(let e of a.f){let r=h.get(e);if(!r.length)continue;let o=`#### ${e} (${m(_.get(e).size,"server")})

`,l=["Server","Path","Live","Declared","Change"],j=[],z=c.length+v.join("").length+o.length+(0,d.j)(l,[]).length+1;for(let $ of r){let S=(0,d.j)(l,[$]).split(`
`)[2].length+1;if(p.size||z+S>f-C){$[4]!=="not compared"&&p.set(e,(p.get(e)??0)+1),u.add($[0]);continue}j.push($),z+=S}j.length&&v.push(`${o}${(0,d.j)(l,j)}
`)}if(c+=v.join(""),p.size||u.size){let e=[...p.values()].reduce((r,o)=>r+o,0);c+=`_Not shown, to keep this comment within ${f.toLocaleString("en")} characters: ${m(e,"more difference")} (${[...p].map(([r,o])=>`${r} ${o}`).join(", ")}) on ${m(u.size,"server")}. \`gsh config diff -o json\` lists every one._

`}return c+M}0&&(module.exports={MARKDOWN_LIMIT,diffMarkdown});
