var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var E=Object.create;var d=Object.defineProperty;var A=Object.getOwnPropertyDescriptor;var S=Object.getOwnPropertyNames;var T=Object.getPrototypeOf,N=Object.prototype.hasOwnProperty;var O=(e,a)=>{for(var t in a)d(e,t,{get:a[t],enumerable:!0})},w=(e,a,t,i)=>{if(a&&typeof a=="object"||typeof a=="function")for(let n of S(a))!N.call(e,n)&&n!==t&&d(e,n,{get:()=>a[n],enumerable:!(i=A(a,n))||i.enumerable});return e};var o=(e,a,t)=>(t=e!=null?E(T(e)):{},w(a||!e||!e.__esModule?d(t,"default",{value:e,enumerable:!0}):t,e)),R=e=>w(d({},"__esModule",{value:!0}),e);var P={};O(P,{operations:()=>b,register:()=>$});module.exports=R(P);var s=require("./chunk-SHDDIUPT.cjs"),x=require("./chunk-WGSLR3I3.cjs"),c=require("./chunk-KJQPIAW2.cjs"),k=require("./chunk-WQBCMMSX.cjs"),M=require("./chunk-IPGPEAAC.cjs"),D=require("./chunk-G3FEQUY2.cjs"),G=require("./chunk-B3DYZB5G.cjs"),W=require("./chunk-BRCEIAA5.cjs"),r=require("./chunk-GBSKUCZH.cjs"),Y=require("./chunk-4PIN4CT5.cjs"),q=require("./chunk-I2AMOZ5V.cjs"),B=require("./chunk-5EWFJGKJ.cjs"),K=require("./chunk-B6DTPJ43.cjs"),F=require("./chunk-CFYFLVIA.cjs"),h="GET /servers",l=e=>[...new Set(s.e.flatMap(a=>e?a.reads:a.reads.slice(0,1)))],m=s.e.map(e=>e.name).join(", "),f=s.e.filter(e=>e.prunable).map(e=>e.name),v=s.e.map(e=>e.summary),b={"config export":[s.e[0].reads[0],h,...l(!0).slice(1)],"config lint":[],"config schema":[],"config diff":[s.e[0].reads[0],h,...l(!1).slice(1)],"config apply":[s.e[0].writes[0],s.e[0].reads[0],h,...l(!1).slice(1),...s.e.flatMap(e=>e.writes).slice(1)]},_=`
Writes DIR/<server name>.yaml for each server: its ${v.slice(0,-1).join(", ")} and ${v.at(-1)}
(--only narrows). A secret is never returned after its creation, so the file names an environment
variable for it (\${env:LOBBY_HOOK_1_SECRET}), never a value. A file that exists is never replaced
without --force (nothing is exported then); exit 11 when some server could not be read.

Examples:
  gsh config export -s lobby --dir exported
  gsh config export -s 'lobby-*' --dir exported --only ${s.e.slice(1,2).map(e=>e.name).join(",")}
  gsh config export -s lobby --dir servers --force   # replaces servers/lobby.yaml

API:
  GET /servers (names), then per server ${l(!0).map(e=>e.replace(/^GET \/servers\/\{server_id\}/,"\u2026")).join(", ")}
`,C=`
Checks declaration files offline (no request, no credential): the JSON Schema of gsh config schema,
then what a schema cannot say: unknown sections and keys (with file:line and the nearest known
name), a value declared twice, a glob that can never match, a rename without an id: pin, a
secret written as a value instead of \${env:NAME}. Formats as gsh init lint. Exit 0 clean, 1
problems found, 2 usage or I/O error.

Examples:
  gsh config lint servers/
  gsh config lint fleet.yaml --format github
`,I=`
Reads only what the files declare, on the servers they manage (-s narrows), and compares only the
declared fields: ${s.e.map(e=>e.compared).join("; ")}. Nothing is changed. Exit 0 in sync,
14 when a server differs, 11 when a server could not be read (it is named, never taken as in
sync). A difference that is a clamp gsh saw (the service stored another value than apply sent)
is named as one, with what to do instead.

A saved plan: --out PLAN also writes the exact writes and the live values they were computed
from (a secret only as its \${env:NAME} placeholder: the plan can be a CI artefact); gsh config
apply --plan PLAN reads those values again and makes exactly those writes, or refuses a stale plan
(exit 6, code stale_plan) naming what changed, before any write.

Examples:
  gsh config diff servers/
  gsh config diff servers/ --out plan.json; gsh config apply --plan plan.json --yes
  gsh config diff fleet.yaml -s 'lobby-*' --only ${s.e[1].name} -o json

API: the reads of the declared kinds only (${l(!1).map(e=>e.replace(/\/servers\/\{server_id\}/,"\u2026")).join(", ")})
`,H=`
Reads again, computes the plan diff shows and makes exactly those writes, each with its own
Idempotency-Key and outcome: ${s.e.map(e=>e.written).join(", ")}. A failed write skips what
depends on it; other kinds and servers go on (-o json lists every change as applied, clamped,
failed, skipped, unknown or not_started; exit 11 when any is not applied). Deletes only items of
a kind the file marks prune: true and --prune names, at most --max-deletes a run. --replace ID
deletes an item and creates it again with the file's values (a webhook's secret: the only way to
change one). Without --yes it asks on a terminal and refuses elsewhere, before any request.
--dry-run reads, then prints the writes it would send (exit 14 while any is pending, 0 when
none). Ctrl-C stops starting changes and names each applied or unknown one with its key; running
apply again makes only what is left. Nothing is restarted.

Examples:
  gsh config apply servers/ --dry-run
  gsh config apply servers/ --yes
  gsh config diff servers/ --out plan.json; gsh config apply --plan plan.json --yes
  gsh config apply fleet.yaml --prune ${f[0]} --max-deletes 2 --yes -o json
`,L=`
Prints the declaration files' JSON Schema (draft-07), the definition gsh config lint checks, for
editors that read YAML through yaml-language-server.

Example:
  gsh config schema > gsh-config.schema.json
`,p=(e,a=[])=>[...a,e];async function g(e,a){let{withRuntime:t}=await Promise.resolve().then(()=>o(require("./runtime-TXWSVI2X.cjs")));await t(e,a)}function $(e){e.command("export").description("Write each server's declarable configuration to DIR/<server name>.yaml (secrets as ${env:\u2026} placeholders)").option("-s, --server <id|name|glob>","servers to export (repeat or comma-separate; default: $GSH_SERVER)",p).option("--dir <dir>","directory the files are written to (default: .)").option("--only <kinds>",`kinds to export, comma-separated (${m})`).option("--force","replace files that exist").option("--parallel <n>","servers read at once (1 to 32, default 4), sharing the rate limit").addHelpText("after",_).action(async function(){await g(this,async a=>(await Promise.resolve().then(()=>o(require("./export-GE5ZRT2F.cjs")))).runExport(a,this.opts()))}),e.command("lint").description("Check declaration files offline: schema, unknown keys with did-you-mean, values declared twice, globs that never match").argument("<paths...>","declaration files or directories").addOption(new x.d("--format <name>","report format (default: stylish on a terminal, else compact)").choices(k.a)).addHelpText("after",C).action(async function(a){let t=(0,r.c)(this.optsWithGlobals().color);await(0,c.a)(this,`lint ${a.join(" ")} locally`,async i=>{let{runConfigLint:n}=await Promise.resolve().then(()=>o(require("./lint-62RY55OG.cjs"))),y=i.stdout.isTTY===!0,u=(0,r.b)(i.env,y,t);return n(a,this.opts(),{stdout:j=>(0,r.f)(i.stdout,u).write(j),isTTY:y,color:u})})}),e.command("schema").description("Print the JSON Schema of declaration files (for editors)").addHelpText("after",L).action(async function(){await(0,c.b)(this,"print the declaration JSON Schema",async()=>(await Promise.resolve().then(()=>o(require("./schema-GAC34PMJ.cjs")))).configJsonSchema(),a=>`${JSON.stringify(a,null,2)}
`)}),e.command("diff").description("Compare the servers with the files (reads only); exit 0 in sync, 14 drift, 11 a server not read").argument("<paths...>","declaration files or directories").option("-s, --server <id|name|glob>","narrow to these of the servers the files manage (repeat or comma-separate)",p).option("--only <kinds>",`kinds to compare, comma-separated (${m})`).option("--out <plan>","also write the exact writes and the live values they come from to PLAN (secrets as placeholders), for apply --plan").option("--prune <kinds>",`with --out: the plan deletes live items of these kinds the file does not list (${f.join(", ")})`).option("--parallel <n>","servers read at once (1 to 32, default 4), sharing the rate limit").addHelpText("after",I).action(async function(a){await g(this,async t=>(await Promise.resolve().then(()=>o(require("./run-MLAQHQDT.cjs")))).runDiff(t,{paths:a,...this.opts()}))}),e.command("apply").description("Make the servers as the files declare: exactly the writes diff shows, each with its key and outcome").argument("[paths...]","declaration files or directories (none with --plan)").option("--plan <plan>","make exactly the writes of a plan saved by diff --out, after reading again what they depend on (exit 6 when stale)").option("-s, --server <id|name|glob>","narrow to these of the servers the files manage (repeat or comma-separate)",p).option("--only <kinds>",`kinds to apply, comma-separated (${m})`).option("--prune <kinds>",`delete live items of these kinds the file does not list (where it marks prune: true): ${f.join(", ")}`).option("--max-deletes <n>","refuse a run that would delete more than n items (default 5)").option("--replace <id>","delete and create again this item (a webhook by URL), sending the file's secret (repeatable)",p).option("--parallel <n>","servers written at once (1 to 32, default 4), sharing the rate limit").addHelpText("after",H).action(async function(a){await g(this,async t=>(await Promise.resolve().then(()=>o(require("./run-MLAQHQDT.cjs")))).runApply(t,{paths:a,...this.opts()}))})}0&&(module.exports={operations,register});
