var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var S=Object.create;var p=Object.defineProperty;var N=Object.getOwnPropertyDescriptor;var I=Object.getOwnPropertyNames;var R=Object.getPrototypeOf,C=Object.prototype.hasOwnProperty;var O=(e,t)=>{for(var a in t)p(e,a,{get:t[a],enumerable:!0})},v=(e,t,a,i)=>{if(t&&typeof t=="object"||typeof t=="function")for(let s of I(t))!C.call(e,s)&&s!==a&&p(e,s,{get:()=>t[s],enumerable:!(i=N(t,s))||i.enumerable});return e};var r=(e,t,a)=>(a=e!=null?S(R(e)):{},v(t||!e||!e.__esModule?p(a,"default",{value:e,enumerable:!0}):a,e)),P=e=>v(p({},"__esModule",{value:!0}),e);var W={};O(W,{operations:()=>E,register:()=>A});module.exports=P(W);var n=require("./chunk-KMJ6U7HK.cjs"),b=require("./chunk-WGSLR3I3.cjs"),y=require("./chunk-SDBEMUFI.cjs"),Y=require("./chunk-B2XCEPZJ.cjs"),$=require("./chunk-WQBCMMSX.cjs"),q=require("./chunk-4FZGFN2E.cjs"),K=require("./chunk-IPPFM4K7.cjs"),B=require("./chunk-5I3OWHEX.cjs"),F=require("./chunk-3UQOZQXS.cjs"),U=require("./chunk-HEO2HQ6N.cjs"),V=require("./chunk-5HMVDWBM.cjs"),j=require("./chunk-B4SV7CYE.cjs"),z=require("./chunk-IPGPEAAC.cjs"),Q=require("./chunk-G3FEQUY2.cjs"),X=require("./chunk-DX32P3ZQ.cjs"),Z=require("./chunk-BRCEIAA5.cjs"),ee=require("./chunk-WK2PKF7C.cjs"),te=require("./chunk-TBKMB3B6.cjs"),d=require("./chunk-GBSKUCZH.cjs"),ae=require("./chunk-4PIN4CT5.cjs"),ne=require("./chunk-I2AMOZ5V.cjs"),se=require("./chunk-VQXIOMMC.cjs"),re=require("./chunk-ZAU4MFPP.cjs"),oe=require("./chunk-XVT4QZTK.cjs"),ie=require("./chunk-W6Y3AJXU.cjs"),le=require("./chunk-CFYFLVIA.cjs"),c="GET /servers",o=e=>[...new Set(n.f.flatMap(t=>e?t.reads:t.reads.slice(0,1)))],f=n.f.map(e=>e.name).join(", "),u=n.f.filter(e=>e.prunable).map(e=>e.name),k=n.f.filter(e=>!e.account).map(e=>e.summary),l=n.f.filter(e=>e.account).map(e=>e.name),x=l.length?`
The account's own kinds (${l.join(", ")}) are declared in a file of their own (version: 1
and ${l[0]}:, no server:) and compared and applied once a run, not per server; with -s they
run only when --only names them.
`:"",E={"config export":[n.f[0].reads[0],c,...o(!0).slice(1)],"config lint":[],"config schema":[],"config diff":[n.f[0].reads[0],c,...o(!1).slice(1)],"config adopt":[n.f[0].reads[0],c,...o(!1).slice(1)],"config apply":[n.f[0].writes[0],n.f[0].reads[0],c,...o(!1).slice(1),...n.f.flatMap(e=>e.writes).slice(1)]},_=`
Writes DIR/<server name>.yaml for each server: its ${k.slice(0,-1).join(", ")} and ${k.at(-1)}
(--only narrows). A secret is never returned after its creation, so the file names an environment
variable for it (\${env:LOBBY_HOOK_1_SECRET}), never a value. A file that exists is never replaced
without --force (nothing is exported then); exit 11 when some server could not be read.${l.length?`
--only ${l.join(",")} (alone, without -s) writes the account's DIR/account.yaml instead,
with the files it names beside it (each init template's manifest).`:""}

Examples:
  gsh config export -s lobby --dir exported
  gsh config export -s 'lobby-*' --dir exported --only ${n.f.slice(1,2).map(e=>e.name).join(",")}
  gsh config export -s lobby --dir servers --force   # replaces servers/lobby.yaml
${l.map(e=>`  gsh config export --only ${e} --dir servers
`).join("")}
API:
  GET /servers (names), then per server ${o(!0).map(e=>e.replace(/^GET \/servers\/\{server_id\}/,"\u2026")).join(", ")}
`,H=`
Checks declaration files offline (no request, no credential): the JSON Schema of gsh config schema,
then what a schema cannot say: unknown sections and keys (with file:line and the nearest known
name), a value declared twice, a glob that can never match, a rename without an id: pin, a
secret written as a value instead of \${env:NAME}. Formats as gsh init lint. Exit 0 clean, 1
problems found, 2 usage or I/O error.

Examples:
  gsh config lint servers/
  gsh config lint fleet.yaml --format github
`,D=`
Reads only what the files declare, on the servers they manage (-s narrows), and compares only the
declared fields: ${n.f.map(e=>e.compared).join("; ")}. Nothing is changed. Exit 0 in sync,
14 when a server differs, 11 when a server could not be read (it is named, never taken as in
sync). A difference that is a clamp gsh saw (the service stored another value than apply sent)
is named as one, with what to do instead.
${x}
A saved plan: --out PLAN also writes the exact writes and the live values they were computed
from (a secret only as its \${env:NAME} placeholder: the plan can be a CI artefact); gsh config
apply --plan PLAN reads those values again and makes exactly those writes, or refuses a stale plan
(exit 6, code stale_plan) naming what changed, before any write.

Examples:
  gsh config diff servers/
  gsh config diff servers/ --out plan.json; gsh config apply --plan plan.json --yes
  gsh config diff fleet.yaml -s 'lobby-*' --only ${n.f[1].name} -o json

API: the reads of the declared kinds only (${o(!1).map(e=>e.replace(/\/servers\/\{server_id\}/,"\u2026")).join(", ")})
`,L=`
Reads again, computes the plan diff shows and makes exactly those writes, each with its own
Idempotency-Key and outcome: ${n.f.map(e=>e.written).join(", ")}. A failed write skips what
depends on it; other kinds and servers go on (-o json lists every change as applied, clamped,
failed, skipped, unknown or not_started; exit 11 when any is not applied). Deletes only items of
a kind the file marks prune: true and --prune names, at most --max-deletes a run. --replace ID
deletes an item and creates it again with the file's values (a webhook's secret: the only way to
change one). Without --yes it asks on a terminal and refuses elsewhere, before any request.
--dry-run reads, then prints the writes it would send (exit 14 while any is pending, 0 when
none). Ctrl-C stops starting changes and names each applied or unknown one with its key; running
apply again makes only what is left. Nothing is restarted.
${x}
Examples:
  gsh config apply servers/ --dry-run
  gsh config apply servers/ --yes
  gsh config diff servers/ --out plan.json; gsh config apply --plan plan.json --yes
  gsh config apply fleet.yaml --prune ${u[0]} --max-deletes 2 --yes -o json
`,M=`
The other way round from apply: a live change is taken into the files instead of reverted. Reads
what the files declare (only reads are sent), and writes the live value of each declared key that
differs into the file that declared it, so that gsh config diff is 0 for it afterwards. Keys the
files do not declare are not added (gsh config export writes what a server has). Comments, key
order and layout are kept: only the value's own text changes, and the file is replaced
atomically. In a fleet file the value goes into the most specific entry the server took it
from; when another server takes it from that entry too and has another value, the key is left
and both are named (declare it per server). A secret, a key declared as \${env:NAME} and a
value a kind cannot take back are left and named. Exit 0 when every difference was taken in
(or none), 11 when some were left or a server could not be read, 2 for usage. Without --yes it
asks on a terminal and refuses elsewhere before any request; --dry-run prints each file's
key, old -> new, and writes nothing.

Examples:
  gsh config adopt servers/ --dry-run
  gsh config adopt servers/ --yes
  gsh config adopt fleet.yaml -s 'lobby-*' --only ${n.f[1].name} --yes

API: the reads of gsh config diff (${o(!1).map(e=>e.replace(/\/servers\/\{server_id\}/,"\u2026")).join(", ")}); no write
`,J=`
Prints the declaration files' JSON Schema (draft-07), the definition gsh config lint checks, for
editors that read YAML through yaml-language-server.

Example:
  gsh config schema > gsh-config.schema.json
`,h=(e,t=[])=>[...t,e];async function m(e,t){let{withRuntime:a}=await Promise.resolve().then(()=>r(require("./runtime-7AYJ3XXT.cjs")));await a(e,t)}function A(e){e.command("export").description("Write each server's declarable configuration to DIR/<server name>.yaml (secrets as ${env:\u2026} placeholders)").option("-s, --server <id|name|glob>","servers to export (repeat or comma-separate; default: $GSH_SERVER)",h).option("--dir <dir>","directory the files are written to (default: .)").option("--only <kinds>",`kinds to export, comma-separated (${f})`).option("--force","replace files that exist").option("--parallel <n>","servers read at once (1 to 32, default 4), sharing the rate limit").addHelpText("after",_).action(async function(){await m(this,async t=>(await Promise.resolve().then(()=>r(require("./export-UUFUHEWY.cjs")))).runExport(t,this.opts()))}),e.command("lint").description("Check declaration files offline: schema, unknown keys with did-you-mean, values declared twice, globs that never match").argument("<paths...>","declaration files or directories").addOption(new b.d("--format <name>","report format (default: stylish on a terminal, else compact)").choices($.a)).addHelpText("after",H).action(async function(t){let a=(0,d.c)(this.optsWithGlobals().color);await(0,y.a)(this,`lint ${t.join(" ")} locally`,async i=>{let{runConfigLint:s}=await Promise.resolve().then(()=>r(require("./lint-7GIIMS5V.cjs"))),g=i.stdout.isTTY===!0,w=(0,d.b)(i.env,g,a);return s(t,this.opts(),{stdout:T=>(0,d.f)(i.stdout,w).write(T),isTTY:g,color:w})})}),e.command("schema").description("Print the JSON Schema of declaration files (for editors)").addHelpText("after",J).action(async function(){await(0,y.b)(this,"print the declaration JSON Schema",async()=>(await Promise.resolve().then(()=>r(require("./schema-EJDBEPNB.cjs")))).configJsonSchema(),t=>`${JSON.stringify(t,null,2)}
`)}),e.command("diff").description("Compare the servers with the files (reads only); exit 0 in sync, 14 drift, 11 a server not read").argument("<paths...>","declaration files or directories").option("-s, --server <id|name|glob>","narrow to these of the servers the files manage (repeat or comma-separate)",h).option("--only <kinds>",`kinds to compare, comma-separated (${f})`).option("--out <plan>","also write the exact writes and the live values they come from to PLAN (secrets as placeholders), for apply --plan").option("--prune <kinds>",`with --out: the plan deletes live items of these kinds the file does not list (${u.join(", ")})`).option("--parallel <n>","servers read at once (1 to 32, default 4), sharing the rate limit").addHelpText("after",D).action(async function(t){await m(this,async a=>(await Promise.resolve().then(()=>r(require("./run-S6RCBKHD.cjs")))).runDiff(a,{paths:t,...this.opts()}))}),e.command("adopt").description("Write the live values of drifted declared keys into the files (comments and layout kept); reads only").argument("<paths...>","declaration files or directories").option("-s, --server <id|name|glob>","narrow to these of the servers the files manage (repeat or comma-separate)",h).option("--only <kinds>",`kinds to adopt, comma-separated (${f})`).option("--parallel <n>","servers read at once (1 to 32, default 4), sharing the rate limit").addHelpText("after",M).action(async function(t){await m(this,async a=>(await Promise.resolve().then(()=>r(require("./adopt-DCMNHFA3.cjs")))).runAdopt(a,{paths:t,...this.opts()}))}),(0,j.e)(e.command("apply").description("Make the servers as the files declare: exactly the writes diff shows, each with its key and outcome").argument("[paths...]","declaration files or directories (none with --plan)").option("--plan <plan>","make exactly the writes of a plan saved by diff --out, after reading again what they depend on (exit 6 when stale)").option("-s, --server <id|name|glob>","narrow to these of the servers the files manage (repeat or comma-separate)",h).option("--only <kinds>",`kinds to apply, comma-separated (${f})`).option("--prune <kinds>",`delete live items of these kinds the file does not list (where it marks prune: true): ${u.join(", ")}`).option("--max-deletes <n>","refuse a run that would delete more than n items (default 5)").option("--replace <id>","delete and create again this item (a webhook by URL), sending the file's secret (repeatable)",h).option("--parallel <n>","servers written at once (1 to 32, default 4), sharing the rate limit")).addHelpText("after",L).action(async function(t){await m(this,async a=>(await Promise.resolve().then(()=>r(require("./run-S6RCBKHD.cjs")))).runApply(a,{paths:t,...this.opts()}))})}0&&(module.exports={operations,register});
