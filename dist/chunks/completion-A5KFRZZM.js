import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
import{a}from"./chunk-PGXE5WX2.js";import{c as r}from"./chunk-IUBIKNWK.js";import"./chunk-J3CTNU3K.js";import"./chunk-5NUSP5DK.js";import{c as h}from"./chunk-H6WJT4CN.js";import"./chunk-AFG6BZBD.js";import{mkdirSync as d,writeFileSync as l}from"node:fs";import{join as g}from"node:path";var u=`
The scripts hold the whole command tree as data: completing never starts gsh or calls the API.
They complete command words, flags and documented values (signals, output formats, choices of
the API such as event names and sources).

Install:
  bash  source <(gsh completion bash)          in ~/.bashrc, or save it as
        ~/.local/share/bash-completion/completions/gsh
  zsh   gsh completion zsh > "\${fpath[1]}/_gsh"  then restart zsh (compinit loads it), or
        source <(gsh completion zsh)          after compinit in ~/.zshrc
  fish  gsh completion fish > ~/.config/fish/completions/gsh.fish

The same scripts ship in the package's completions/ folder.
`;function S(n){n.addArgument(new r("[shell]","bash, zsh or fish").choices(["bash","zsh","fish"])).option("--dir <dir>","write all three scripts into this directory instead (gsh.bash, _gsh, gsh.fish)").addHelpText("after",u).action(async function(s){let{dir:o}=this.opts();if(!s&&!o)throw new h("name a shell: bash, zsh or fish","For example: gsh completion bash");await a(this,o?`write the ${s??"bash, zsh and fish"} completion scripts into ${o}`:`print the ${s} completion script`,async c=>{let[{loadDocTree:m},{completionScript:t,COMPLETION_FILES:p,SHELLS:f}]=await Promise.all([import("./command-tree-KTONEZCD.js"),import("./generated-files-3JL5MURC.js")]),i=await m();if(!o){c.stdout.write(t(s,i));return}d(o,{recursive:!0});for(let e of s?[s]:f)l(g(o,p[e]),t(e,i))})})}export{S as register};
