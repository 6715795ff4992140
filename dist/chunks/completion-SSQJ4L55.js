import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
import{a}from"./chunk-N7KA3ZPD.js";import{c as r}from"./chunk-IUBIKNWK.js";import"./chunk-J3CTNU3K.js";import"./chunk-5NUSP5DK.js";import{c as n}from"./chunk-H6WJT4CN.js";import"./chunk-AFG6BZBD.js";import{mkdirSync as d,writeFileSync as l}from"node:fs";import{join as g}from"node:path";var u=`
The scripts hold the whole command tree as data: command words, flags and documented values
(signals, output formats, choices of the API such as event names and sources) complete without
starting gsh. Only -s/--server <TAB> asks the API for your server names (one request with a 2 s
budget, cached for a minute in the config dir, silent when it fails).

Install:
  bash  source <(gsh completion bash)          in ~/.bashrc, or save it as
        ~/.local/share/bash-completion/completions/gsh
  zsh   gsh completion zsh > "\${fpath[1]}/_gsh"  then restart zsh (compinit loads it), or
        source <(gsh completion zsh)          after compinit in ~/.zshrc
  fish  gsh completion fish > ~/.config/fish/completions/gsh.fish

The same scripts ship in the package's completions/ folder.
`;function S(h){h.addArgument(new r("[shell]","bash, zsh or fish").choices(["bash","zsh","fish"])).option("--dir <dir>","write all three scripts into this directory instead (gsh.bash, _gsh, gsh.fish)").addHelpText("after",u).action(async function(s){let{dir:t}=this.opts();if(!s&&!t)throw new n("name a shell: bash, zsh or fish","For example: gsh completion bash");await a(this,t?`write the ${s??"bash, zsh and fish"} completion scripts into ${t}`:`print the ${s} completion script`,async c=>{let[{loadDocTree:m},{completionScript:o,COMPLETION_FILES:p,SHELLS:f}]=await Promise.all([import("./command-tree-FMX4Q3SE.js"),import("./generated-files-YVRC2B4F.js")]),i=await m();if(!t){c.stdout.write(o(s,i));return}d(t,{recursive:!0});for(let e of s?[s]:f)l(g(t,p[e]),o(e,i))})})}export{S as register};
