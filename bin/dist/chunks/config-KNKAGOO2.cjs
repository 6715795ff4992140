var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var b=Object.create;var n=Object.defineProperty;var T=Object.getOwnPropertyDescriptor;var x=Object.getOwnPropertyNames;var E=Object.getPrototypeOf,_=Object.prototype.hasOwnProperty;var P=(e,s)=>{for(var r in s)n(e,r,{get:s[r],enumerable:!0})},u=(e,s,r,a)=>{if(s&&typeof s=="object"||typeof s=="function")for(let t of x(s))!_.call(e,t)&&t!==r&&n(e,t,{get:()=>s[t],enumerable:!(a=T(s,t))||a.enumerable});return e};var i=(e,s,r)=>(r=e!=null?b(E(e)):{},u(s||!e||!e.__esModule?n(r,"default",{value:e,enumerable:!0}):r,e)),G=e=>u(n({},"__esModule",{value:!0}),e);var R={};P(R,{operations:()=>y,register:()=>w});module.exports=G(R);var v=require("./chunk-WGSLR3I3.cjs"),d=require("./chunk-H6WEAIU5.cjs"),g=require("./chunk-WQBCMMSX.cjs"),N=require("./chunk-IPGPEAAC.cjs"),D=require("./chunk-BRCEIAA5.cjs"),o=require("./chunk-IRGJJNXL.cjs"),I=require("./chunk-WWVJ2PT3.cjs"),J=require("./chunk-I2AMOZ5V.cjs"),L=require("./chunk-T7CLMXQW.cjs"),U=require("./chunk-CFYFLVIA.cjs"),p=["GET /servers/{server_id}/settings","GET /servers","GET /servers/{server_id}/properties","GET /servers/{server_id}/startup","GET /servers/{server_id}/properties/configs","GET /servers/{server_id}/properties/configs/{config_type}","GET /servers/{server_id}/hooks","GET /servers/{server_id}/subusers"],y={"config export":p,"config lint":[],"config schema":[],"config diff":p.filter(e=>e!=="GET /servers/{server_id}/properties/configs"),"config apply":["PATCH /servers/{server_id}/settings",...p.filter(e=>e!=="GET /servers/{server_id}/properties/configs"),"PUT /servers/{server_id}/properties","PATCH /servers/{server_id}/startup/variables/{env_variable}","PUT /servers/{server_id}/properties/configs/{config_type}","POST /servers/{server_id}/hooks","PATCH /servers/{server_id}/hooks/{hook_id}","DELETE /servers/{server_id}/hooks/{hook_id}","POST /servers/{server_id}/subusers","PUT /servers/{server_id}/subusers/{user_id}","DELETE /servers/{server_id}/subusers/{user_id}"]},c="settings, properties, startup, configs, hooks, subusers",S=`
Writes DIR/<server name>.yaml for each server: its settings (description, startup-detection
message, stop command), server.properties, startup variables, application config files, webhooks
and subusers (--only narrows). A webhook's secret is never returned after its creation, so the file
names an environment variable for it (\${env:LOBBY_HOOK_1_SECRET}), never a value. A file that
exists is never replaced without --force (nothing is exported then); exit 11 when some server
could not be read.

Examples:
  gsh config export -s lobby --dir exported
  gsh config export -s 'lobby-*' --dir exported --only properties,hooks
  gsh config export -s lobby --dir servers --force   # replaces servers/lobby.yaml

API:
  GET /servers (names), then per server GET \u2026/settings, \u2026/properties, \u2026/startup,
  \u2026/properties/configs (and each config), \u2026/hooks, \u2026/subusers
`,A=`
Checks declaration files offline (no request, no credential): the JSON Schema of gsh config schema,
then what a schema cannot say: unknown sections and keys (with file:line and the nearest known
name), a value declared twice, a glob that can never match, settings.name without an id: pin, a
secret written as a value instead of \${env:NAME}. Formats as gsh init lint. Exit 0 clean, 1
problems found, 2 usage or I/O error.

Examples:
  gsh config lint servers/
  gsh config lint fleet.yaml --format github
`,C=`
Reads only what the files declare, on the servers they manage (-s narrows), and compares only the
declared fields: properties and variables as text (true equals "true", 60 equals "60"), event and
permission lists as sets; a webhook's secret is write-only and shown as not compared. Nothing is
changed. Exit 0 in sync, 14 when a server differs, 11 when a server could not be read (it is named,
never taken as in sync).

Examples:
  gsh config diff servers/
  gsh config diff fleet.yaml -s 'lobby-*' --only properties -o json

API: the reads of the declared kinds only (GET \u2026/settings, \u2026/properties, \u2026/startup, \u2026/hooks, \u2026)
`,H=`
Reads again, computes the plan diff shows and makes exactly those writes, each with its own
Idempotency-Key and outcome: one PATCH for settings, one PUT for server.properties (a merge), one
PATCH per startup variable, one PUT per config file, and per webhook or subuser a create, update
or delete. A failed write skips what depends on it; other kinds and servers go on (-o json lists
every change as applied, failed, skipped, unknown or not_started; exit 11 then). Deletes only
items of a kind the file marks prune: true and --prune names, at most --max-deletes a run.
--replace URL deletes a webhook and creates it again with the file's secret (the only way to
change a secret). --dry-run reads, then prints the writes it would send. Ctrl-C stops starting
changes and names each applied or unknown one with its key; running apply again makes only what
is left. Nothing is restarted.

Examples:
  gsh config apply servers/ --dry-run
  gsh config apply servers/ --yes
  gsh config apply fleet.yaml --prune hooks --max-deletes 2 --yes -o json
`,O=`
Prints the declaration files' JSON Schema (draft-07), the definition gsh config lint checks, for
editors that read YAML through yaml-language-server.

Example:
  gsh config schema > gsh-config.schema.json
`,l=(e,s=[])=>[...s,e];async function h(e,s){let{withRuntime:r}=await Promise.resolve().then(()=>i(require("./runtime-HITT2GTZ.cjs")));await r(e,s)}function w(e){e.command("export").description("Write each server's declarable configuration to DIR/<server name>.yaml (secrets as ${env:\u2026} placeholders)").option("-s, --server <id|name|glob>","servers to export (repeat or comma-separate; default: $GSH_SERVER)",l).option("--dir <dir>","directory the files are written to (default: .)").option("--only <kinds>",`kinds to export, comma-separated (${c})`).option("--force","replace files that exist").option("--parallel <n>","servers read at once (1 to 32, default 4), sharing the rate limit").addHelpText("after",S).action(async function(){await h(this,async s=>(await Promise.resolve().then(()=>i(require("./export-PMG6L6ZH.cjs")))).runExport(s,this.opts()))}),e.command("lint").description("Check declaration files offline: schema, unknown keys with did-you-mean, values declared twice, globs that never match").argument("<paths...>","declaration files or directories").addOption(new v.d("--format <name>","report format (default: stylish on a terminal, else compact)").choices(g.a)).addHelpText("after",A).action(async function(s){let r=(0,o.c)(this.optsWithGlobals().color);await(0,d.a)(this,`lint ${s.join(" ")} locally`,async a=>{let{runConfigLint:t}=await Promise.resolve().then(()=>i(require("./lint-LTEN64OT.cjs"))),f=a.stdout.isTTY===!0,m=(0,o.b)(a.env,f,r);return t(s,this.opts(),{stdout:k=>(0,o.f)(a.stdout,m).write(k),isTTY:f,color:m})})}),e.command("schema").description("Print the JSON Schema of declaration files (for editors)").addHelpText("after",O).action(async function(){await(0,d.b)(this,"print the declaration JSON Schema",async()=>(await Promise.resolve().then(()=>i(require("./schema-54VJHPCU.cjs")))).configJsonSchema(),s=>`${JSON.stringify(s,null,2)}
`)}),e.command("diff").description("Compare the servers with the files (reads only); exit 0 in sync, 14 drift, 11 a server not read").argument("<paths...>","declaration files or directories").option("-s, --server <id|name|glob>","narrow to these of the servers the files manage (repeat or comma-separate)",l).option("--only <kinds>",`kinds to compare, comma-separated (${c})`).option("--parallel <n>","servers read at once (1 to 32, default 4), sharing the rate limit").addHelpText("after",C).action(async function(s){await h(this,async r=>(await Promise.resolve().then(()=>i(require("./run-RFM6EWY5.cjs")))).runDiff(r,{paths:s,...this.opts()}))}),e.command("apply").description("Make the servers as the files declare: exactly the writes diff shows, each with its key and outcome").argument("<paths...>","declaration files or directories").option("-s, --server <id|name|glob>","narrow to these of the servers the files manage (repeat or comma-separate)",l).option("--only <kinds>",`kinds to apply, comma-separated (${c})`).option("--prune <kinds>","delete live hooks or subusers the file does not list (where it marks prune: true)").option("--max-deletes <n>","refuse a run that would delete more than n items (default 5)").option("--replace <url>","delete and create again this webhook, sending the file's secret (repeatable)",l).option("--parallel <n>","servers written at once (1 to 32, default 4), sharing the rate limit").addHelpText("after",H).action(async function(s){await h(this,async r=>(await Promise.resolve().then(()=>i(require("./run-RFM6EWY5.cjs")))).runApply(r,{paths:s,...this.opts()}))})}0&&(module.exports={operations,register});
