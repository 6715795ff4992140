var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var T=Object.create;var h=Object.defineProperty;var k=Object.getOwnPropertyDescriptor;var E=Object.getOwnPropertyNames;var O=Object.getPrototypeOf,j=Object.prototype.hasOwnProperty;var P=(e,s)=>{for(var i in s)h(e,i,{get:s[i],enumerable:!0})},u=(e,s,i,a)=>{if(s&&typeof s=="object"||typeof s=="function")for(let t of E(s))!j.call(e,t)&&t!==i&&h(e,t,{get:()=>s[t],enumerable:!(a=k(s,t))||a.enumerable});return e};var o=(e,s,i)=>(i=e!=null?T(O(e)):{},u(s||!e||!e.__esModule?h(i,"default",{value:e,enumerable:!0}):i,e)),_=e=>u(h({},"__esModule",{value:!0}),e);var U={};P(U,{register:()=>S,replaces:()=>b});module.exports=_(U);var m=require("./chunk-WGSLR3I3.cjs"),d=require("./chunk-SDBEMUFI.cjs"),g=require("./chunk-WQBCMMSX.cjs"),f=require("./chunk-3UQOZQXS.cjs"),w=require("./chunk-B4SV7CYE.cjs"),M=require("./chunk-IPGPEAAC.cjs"),q=require("./chunk-BRCEIAA5.cjs"),G=require("./chunk-WK2PKF7C.cjs"),n=require("./chunk-GBSKUCZH.cjs"),y=require("./chunk-4PIN4CT5.cjs"),Y=require("./chunk-I2AMOZ5V.cjs"),x=require("./chunk-PCFY3MET.cjs"),J=require("./chunk-W6Y3AJXU.cjs"),N=require("./chunk-CFYFLVIA.cjs"),H=`
Checks init manifests against the contract without calling the API: the exact first line
#service-init, version 1, the 48 KB document limit (read as 48,000 bytes, the stricter reading),
unknown keys at every depth, each section's shape, the per-plan caps of --tier, decoded sizes of
content_base64, cron fields, checksums, event and permission names, hook URLs (https, no literal
private or loopback address), file modes, and the contract's known limitations (as warnings).
Every problem is reported in one pass with its field path (assets[0].size), line and column.

Inputs: files, directories (every *.yaml/*.yml under them whose first line is the header, or a
near miss of it such as "# service-init"; .git and node_modules are skipped) and - for stdin.

--tier: caps of the free or paid plan. Default paid: templates are validated at paid caps when
saved; a server re-validates at its real tier when it is created.

Formats: stylish (default on a terminal), compact (default when piped:
file:line:col: severity: message [path] (rule)), json ([{file, problems:[{severity, rule, path,
line, column, endLine, endColumn, message}]}], 1-based, endColumn just after the text), sarif
(2.1.0, for code scanning: paths relative to %SRCROOT%, each rule with its help inline; an
input that cannot be read makes the run unsuccessful), github (workflow annotations plus a
summary line; with $GITHUB_STEP_SUMMARY set, a Markdown job summary is appended to that file).

Exit codes: 0 no errors (warnings alone pass unless --max-warnings is exceeded), 1 problems
found, 2 usage or I/O error (an input that cannot be read).

Examples:
  $ gsh init lint server.yaml
  $ gsh init lint --tier free manifests/
  $ cat server.yaml | gsh init lint - --stdin-filename server.yaml
  $ gsh init lint --format sarif manifests/ > init-lint.sarif
  $ gsh init lint --format github --max-warnings 0 manifests/

pre-commit (.pre-commit-config.yaml):
  - repo: <this repository>
    rev: <tag>
    hooks:
      - id: gsh-init-lint
`,R=`
Prints the manifest's JSON Schema (draft-07) from the same definition the linter uses, for
editors that read YAML through yaml-language-server. Caps are those of --tier (default paid).
Rules JSON Schema cannot express (the header line, the 48 KB limit, sums across entries) are
listed in its $comment and checked by gsh init lint.

Examples:
  $ gsh init schema > init.schema.json
  $ gsh init schema --tier free > init.free.schema.json

Then put this on line 2 of a manifest (line 1 stays #service-init):
  # yaml-language-server: $schema=./init.schema.json
`,I=`
Sends the file's text as the inline init of POST /init/validate, a dry run that provisions
nothing, and shows the service's field errors (init.-prefixed) against the file's lines. With
--template, the file is an overlay: its top-level keys replace the saved template's (a problem in
a section that only the template has is shown against the template). --tier picks the plan caps
(the service defaults to paid when it is left out).

Examples:
  $ gsh init validate service-init.yaml --tier free
  $ gsh init validate overlay.yaml --template tpl_123
  $ gsh init validate --template tpl_123 --tier free

API:
  POST /init/validate  (scope templates:read)
`,A=`
Shows the server's latest provisioning job: phases content, files, env, registrations, run,
finalize. content, files and env are hard (a failure fails the job); registrations and run are
soft (warnings, and the job ends partial). --wait follows the job to its end: completed and
partial exit 0 (partial prints its warnings), failed and timed_out exit 1.

Example:
  $ gsh init status -s lobby --wait

API:
  GET /servers/{server_id}/init  (scope servers:read)
`,v=e=>`
The manifest file is linted locally at the paid caps (the caps templates are saved at) and
nothing is sent while it has errors; --no-lint sends it anyway and shows the service's answer
against the file's lines.${e==="update"?" A manifest replaces the stored one entirely.":""}

Example:
  $ ${e==="create"?'gsh init templates create service-init.yaml --name paper-lobby --description "Paper lobby"':'gsh init templates update tpl_123 service-init.yaml --description "Paper lobby, 1.21"'}

API:
  ${e==="create"?"POST /init/templates":"PATCH /init/templates/{template_id}"}  (scope templates:write)
`;function C(e,s){return[...s??[],e]}async function c(e,s){let{withRuntime:i}=await Promise.resolve().then(()=>o(require("./runtime-7AYJ3XXT.cjs")));await i(e,s)}var b=["init templates create","init templates update","init validate","init status"];function S(e){e.command("lint").description("Check init manifests offline: every rule of the contract, at free or paid caps").argument("[inputs...]","manifest files, directories, or - for stdin").addOption(new m.d("--format <name>","report format (default: stylish on a terminal, else compact)").choices(g.a)).addOption(new m.d("--tier <tier>","plan caps to check against (default: paid, the tier templates are saved at)").choices(f.a)).option("--quiet","report errors only").option("--max-warnings <n>","exit 1 when there are more than n warnings").option("--stdin-filename <name>","the name stdin (-) has in reports").option("--only-manifests","skip files that are not manifests (as for directories); the pre-commit hook sets it").addHelpText("after",H).action(async function(i){let a=(0,n.c)(this.optsWithGlobals().color);await(0,d.a)(this,`lint ${i.length?i.join(" "):"the manifests in ."} locally`,async t=>{let{runLint:p}=await Promise.resolve().then(()=>o(require("./run-lint-GRZPXUIB.cjs"))),r=t.stdout.isTTY===!0;return p({inputs:i,...this.opts()},{stdout:l=>(0,n.f)(t.stdout,(0,n.b)(t.env,r,a)).write(l),stderr:l=>(0,n.g)(t.stderr,(0,n.b)(t.env,t.stderr.isTTY===!0,a)).write(l),isTTY:r,color:(0,n.b)(t.env,r,a),readStdin:()=>(0,x.a)(t.stdin),stepSummary:t.env.GITHUB_STEP_SUMMARY||void 0,text:y.f})})}),e.command("rules").description("Explain the lint rules: id, severity, what each checks and how to fix it").argument("[rule...]","rule ids as reports name them (default: every rule)").addHelpText("after",`
The text the reports point at: SARIF carries each rule's help inline, and the GitHub job summary
and stylish report name rule ids that this prints.

Examples:
  $ gsh init rules
  $ gsh init rules hook-https header
`).action(async function(i){let{RULE_IDS:a,RULES:t}=await Promise.resolve().then(()=>o(require("./rules-V3Z7FSYY.cjs"))),p=i.filter(r=>!a.includes(r));if(p.length){let{UsageError:r}=await Promise.resolve().then(()=>o(require("./errors-NTR4MZXR.cjs")));throw new r(`unknown rule ${p.join(", ")}`,"gsh init rules lists every rule.")}await(0,d.a)(this,"print the lint rules",r=>{for(let l of a.filter($=>i.length===0||i.includes($)))(0,n.f)(r.stdout).write(`${l} (${t[l].severity})
  ${t[l].summary}
  ${t[l].help}

`)})}),e.command("schema").description("Print the manifest JSON Schema (draft-07) for editors").addOption(new m.d("--tier <tier>","plan caps to put in the schema (default: paid)").choices(f.a)).addHelpText("after",R).action(async function(){let{schemaFor:i}=await Promise.resolve().then(()=>o(require("./run-schema-QBGUM6JC.cjs"))),a=i(this.opts());await(0,d.b)(this,"print the manifest JSON Schema",async()=>a,t=>`${JSON.stringify(t,null,2)}
`)}),e.command("validate").description("Validate a manifest with the service (dry run), optionally over a saved template and at a tier").argument("[file]","manifest file, or - for stdin").option("--template <id>","saved template the file is merged onto (its top-level keys replace the template's)").addOption(new m.d("--tier <tier>","plan caps to validate at (default: the service's, paid)").choices(f.a)).addHelpText("after",I).action(async function(i){let{runValidate:a}=await Promise.resolve().then(()=>o(require("./validate-J4FDIIDU.cjs")));await c(this,t=>a(t,i,this.opts()))});let s=e.command("templates").description("Saved init templates: create and update from a file, list, get, delete");s.helpCommand(!1),s.command("create").description("Save a manifest file as a template (name unique per account), linted locally at paid caps first").argument("[file]","manifest file, or - for stdin (the service requires a manifest)").requiredOption("--name <name>","template name, unique per account").option("--description <text>","what the template sets up").option("--no-lint","send without linting locally first").option("--if-absent","create only if no template has this name; otherwise print it and exit 0").addHelpText("after",v("create")).action(async function(i){let{runTemplateCreate:a}=await Promise.resolve().then(()=>o(require("./templates-ESFKLQOO.cjs")));await c(this,t=>a(t,i,this.opts()))}),s.command("update").description("Change a template's name, description or manifest (a manifest file replaces the stored one)").argument("<template-id>","init template id from init templates list").argument("[file]","manifest file replacing the stored one, or - for stdin").option("--name <name>","new name, unique per account").option("--description <text>","new description").option("--no-lint","send without linting locally first").addHelpText("after",v("update")).action(async function(i,a){let{runTemplateUpdate:t}=await Promise.resolve().then(()=>o(require("./templates-ESFKLQOO.cjs")));await c(this,p=>t(p,i,a,this.opts()))}),(0,w.e)(e.command("status").description("Latest provisioning job of a server: phases, progress and warnings").option("-s, --server <id|name>","server id or name (default: $GSH_SERVER); for several: repeat it, commas, a name glob, or - for stdin",C).option("--all-servers","every server the key can reach").option("--wait","follow the job until it finishes (failed or timed_out exit 1)").addHelpText("after",A).action(async function(){let{runStatus:i}=await Promise.resolve().then(()=>o(require("./status-BUEGFON3.cjs"))),a=this.opts();await c(this,t=>i(t,a,a.wait===!0))}))}0&&(module.exports={register,replaces});
