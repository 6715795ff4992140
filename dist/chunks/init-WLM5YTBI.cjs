var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var x=Object.create;var o=Object.defineProperty;var S=Object.getOwnPropertyDescriptor;var T=Object.getOwnPropertyNames;var $=Object.getPrototypeOf,k=Object.prototype.hasOwnProperty;var O=(e,a)=>{for(var t in a)o(e,t,{get:a[t],enumerable:!0})},u=(e,a,t,s)=>{if(a&&typeof a=="object"||typeof a=="function")for(let i of T(a))!k.call(e,i)&&i!==t&&o(e,i,{get:()=>a[i],enumerable:!(s=S(a,i))||s.enumerable});return e};var n=(e,a,t)=>(t=e!=null?x($(e)):{},u(a||!e||!e.__esModule?o(t,"default",{value:e,enumerable:!0}):t,e)),P=e=>u(o({},"__esModule",{value:!0}),e);var H={};O(H,{register:()=>b,replaces:()=>y});module.exports=P(H);var m=require("./chunk-3JGLAHN7.cjs"),r=require("./chunk-WGSLR3I3.cjs"),g=require("./chunk-WQBCMMSX.cjs"),p=require("./chunk-3UQOZQXS.cjs"),R=require("./chunk-IPGPEAAC.cjs"),d=require("./chunk-OUKZYLKD.cjs"),I=require("./chunk-5NVEVDRY.cjs"),w=require("./chunk-HF5LC6UN.cjs"),q=require("./chunk-L34UKMEU.cjs"),M=require("./chunk-CFYFLVIA.cjs"),_=`
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
(2.1.0, for code scanning: paths relative to %SRCROOT%, each rule with help and a link; an
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
`,j=`
Prints the manifest's JSON Schema (draft-07) from the same definition the linter uses, for
editors that read YAML through yaml-language-server. Caps are those of --tier (default paid).
Rules JSON Schema cannot express (the header line, the 48 KB limit, sums across entries) are
listed in its $comment and checked by gsh init lint.

Examples:
  $ gsh init schema > init.schema.json
  $ gsh init schema --tier free > init.free.schema.json

Then put this on line 2 of a manifest (line 1 stays #service-init):
  # yaml-language-server: $schema=./init.schema.json
`,E=`
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
`,C=`
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
`;async function l(e,a){let{withRuntime:t}=await Promise.resolve().then(()=>n(require("./runtime-KV6RAHKC.cjs")));await t(e,a)}var y=["init templates create","init templates update","init validate","init status"];function b(e){e.command("lint").description("Check init manifests offline: every rule of the contract, at free or paid caps").argument("[inputs...]","manifest files, directories, or - for stdin").addOption(new r.d("--format <name>","report format (default: stylish on a terminal, else compact)").choices(g.a)).addOption(new r.d("--tier <tier>","plan caps to check against (default: paid, the tier templates are saved at)").choices(p.a)).option("--quiet","report errors only").option("--max-warnings <n>","exit 1 when there are more than n warnings").option("--stdin-filename <name>","the name stdin (-) has in reports").option("--only-manifests","skip files that are not manifests (as for directories); the pre-commit hook sets it").addHelpText("after",_).action(async function(t){let s=(0,d.c)(this.optsWithGlobals().color);await(0,m.a)(this,`lint ${t.length?t.join(" "):"the manifests in ."} locally`,async i=>{let{runLint:c}=await Promise.resolve().then(()=>n(require("./run-lint-H4JAEQPY.cjs"))),f=i.stdout.isTTY===!0;return c({inputs:t,...this.opts()},{stdout:h=>i.stdout.write(h),stderr:h=>i.stderr.write(h),isTTY:f,color:(0,d.b)(i.env,f,s),readStdin:()=>(0,w.e)(i.stdin),stepSummary:i.env.GITHUB_STEP_SUMMARY||void 0})})}),e.command("schema").description("Print the manifest JSON Schema (draft-07) for editors").addOption(new r.d("--tier <tier>","plan caps to put in the schema (default: paid)").choices(p.a)).addHelpText("after",j).action(async function(){let{schemaFor:t}=await Promise.resolve().then(()=>n(require("./run-schema-PE4B2ZWV.cjs"))),s=t(this.opts());await(0,m.b)(this,"print the manifest JSON Schema",async()=>s,i=>`${JSON.stringify(i,null,2)}
`)}),e.command("validate").description("Validate a manifest with the service (dry run), optionally over a saved template and at a tier").argument("[file]","manifest file, or - for stdin").option("--template <id>","saved template the file is merged onto (its top-level keys replace the template's)").addOption(new r.d("--tier <tier>","plan caps to validate at (default: the service's, paid)").choices(p.a)).addHelpText("after",E).action(async function(t){let{runValidate:s}=await Promise.resolve().then(()=>n(require("./validate-TNMU4IDO.cjs")));await l(this,i=>s(i,t,this.opts()))});let a=e.command("templates").description("Saved init templates: create and update from a file, list, get, delete");a.helpCommand(!1),a.command("create").description("Save a manifest file as a template (name unique per account), linted locally at paid caps first").argument("[file]","manifest file, or - for stdin (the service requires a manifest)").requiredOption("--name <name>","template name, unique per account").option("--description <text>","what the template sets up").option("--no-lint","send without linting locally first").option("--if-absent","create only if no template has this name; otherwise print it and exit 0").addHelpText("after",v("create")).action(async function(t){let{runTemplateCreate:s}=await Promise.resolve().then(()=>n(require("./templates-Q4WD47PB.cjs")));await l(this,i=>s(i,t,this.opts()))}),a.command("update").description("Change a template's name, description or manifest (a manifest file replaces the stored one)").argument("<template-id>","init template id from init templates list").argument("[file]","manifest file replacing the stored one, or - for stdin").option("--name <name>","new name, unique per account").option("--description <text>","new description").option("--no-lint","send without linting locally first").addHelpText("after",v("update")).action(async function(t,s){let{runTemplateUpdate:i}=await Promise.resolve().then(()=>n(require("./templates-Q4WD47PB.cjs")));await l(this,c=>i(c,t,s,this.opts()))}),e.command("status").description("Latest provisioning job of a server: phases, progress and warnings").option("-s, --server <id|name>","server id or name (default: $GSH_SERVER)").option("--wait","follow the job until it finishes (failed or timed_out exit 1)").addHelpText("after",C).action(async function(){let{runStatus:t}=await Promise.resolve().then(()=>n(require("./status-F5PQ64HT.cjs"))),s=this.opts();await l(this,i=>t(i,s.server,s.wait===!0))})}0&&(module.exports={register,replaces});
