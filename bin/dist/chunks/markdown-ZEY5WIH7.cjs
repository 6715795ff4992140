var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var w=Object.defineProperty;var I=Object.getOwnPropertyDescriptor;var K=Object.getOwnPropertyNames;var R=Object.prototype.hasOwnProperty;var W=(t,o)=>{for(var p in o)w(t,p,{get:o[p],enumerable:!0})},x=(t,o,p,m)=>{if(o&&typeof o=="object"||typeof o=="function")for(let i of K(o))!R.call(t,i)&&i!==p&&w(t,i,{get:()=>o[i],enumerable:!(m=I(o,i))||m.enumerable});return t};var E=t=>x(w({},"__esModule",{value:!0}),t);var O={};W(O,{MARKDOWN_LIMIT:()=>y,diffMarkdown:()=>L});module.exports=E(O);var a=require("./chunk-KMJ6U7HK.cjs"),T=require("./chunk-B2XCEPZJ.cjs"),q=require("./chunk-4FZGFN2E.cjs"),B=require("./chunk-IPPFM4K7.cjs"),F=require("./chunk-5I3OWHEX.cjs"),G=require("./chunk-3UQOZQXS.cjs"),H=require("./chunk-HEO2HQ6N.cjs"),J=require("./chunk-5HMVDWBM.cjs"),Q=require("./chunk-G3FEQUY2.cjs"),U=require("./chunk-DX32P3ZQ.cjs"),s=require("./chunk-2GUTWAN4.cjs"),V=require("./chunk-TBKMB3B6.cjs"),X=require("./chunk-GBSKUCZH.cjs"),Y=require("./chunk-4PIN4CT5.cjs"),Z=require("./chunk-I2AMOZ5V.cjs"),ee=require("./chunk-VQXIOMMC.cjs"),te=require("./chunk-ZAU4MFPP.cjs"),re=require("./chunk-XVT4QZTK.cjs"),oe=require("./chunk-W6Y3AJXU.cjs"),ne=require("./chunk-CFYFLVIA.cjs"),y=65e3,A=120,b=t=>t.length>A?`${t.slice(0,A-1)}\u2026`:t,D=t=>b(t==null?"-":Array.isArray(t)?t.map(a.b).join(", "):(0,a.b)(t)),h=(t,o,p=`${o}s`)=>`${t} ${t===1?o:p}`;function L(t,o=m=>m,p=y){let m=e=>e.account?"account":o(e.server_name??e.server_id??"?"),i=t.filter(e=>e.in_sync===!1),f=t.filter(e=>e.error!==void 0),d=new Map(a.g.map(e=>[e,[]])),_=new Map(a.g.map(e=>[e,new Set]));for(let e of i){for(let r of e.changes??[]){let n=`${r.action}${r.held?" (held)":""}`;for(let l of r.fields)d.get(r.kind)?.push([m(e),o(l.path),o(D(l.live)),o(D(l.declared)),l.clamped?`${n} (clamped)`:n]);_.get(r.kind)?.add(m(e))}for(let r of e.not_compared??[]){let n=a.g.find(l=>r.startsWith(l))??"";d.get(n)?.push([m(e),o(r),"(write-only)","(masked)","not compared"])}}let k=[...d.values()].reduce((e,r)=>e+r.filter(n=>n[4]!=="not compared").length,0),N=a.g.filter(e=>d.get(e).some(r=>r[4]!=="not compared")).map(e=>`${e} ${d.get(e).filter(r=>r[4]!=="not compared").length}`),c=`### gsh config diff: ${i.length?`${h(i.length,"server")} of ${t.length} ${i.length===1?"differs":"differ"}`:`all ${h(t.length,"server")} in sync`}${f.length?`, ${f.length} could not be read`:""}

`;k&&(c+=`${h(k,"difference")}: ${N.join(", ")}. \`gsh config apply\` makes them; a clamped value needs the file changed instead.

`);let g=new Map,u=new Set,M=f.length?`#### Not read

${f.slice(0,50).map(e=>`- ${(0,s.i)(m(e))}: ${(0,s.i)(o(b(e.error.message)))}`).join(`
`)}
${f.length>50?`- and ${f.length-50} more
`:""}
`:"",C=400+a.g.join("").length*2+M.length,v=[];for(let e of a.g){let r=d.get(e);if(!r.length)continue;let n=`#### ${e} (${h(_.get(e).size,"server")})

`,l=["Server","Path","Live","Declared","Change"],j=[],z=c.length+v.join("").length+n.length+(0,s.j)(l,[]).length+1;for(let $ of r){let S=(0,s.j)(l,[$]).split(`
`)[2].length+1;if(g.size||z+S>p-C){$[4]!=="not compared"&&g.set(e,(g.get(e)??0)+1),u.add($[0]);continue}j.push($),z+=S}j.length&&v.push(`${n}${(0,s.j)(l,j)}
`)}if(c+=v.join(""),g.size||u.size){let e=[...g.values()].reduce((r,n)=>r+n,0);c+=`_Not shown, to keep this comment within ${p.toLocaleString("en")} characters: ${h(e,"more difference")} (${[...g].map(([r,n])=>`${r} ${n}`).join(", ")}) on ${h(u.size,"server")}. \`gsh config diff -o json\` lists every one._

`}return c+M}0&&(module.exports={MARKDOWN_LIMIT,diffMarkdown});
