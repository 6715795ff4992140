var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var b=Object.create;var r=Object.defineProperty;var z=Object.getOwnPropertyDescriptor;var v=Object.getOwnPropertyNames;var T=Object.getPrototypeOf,y=Object.prototype.hasOwnProperty;var I=(s,i)=>{for(var t in i)r(s,t,{get:i[t],enumerable:!0})},c=(s,i,t,o)=>{if(i&&typeof i=="object"||typeof i=="function")for(let e of v(i))!y.call(s,e)&&e!==t&&r(s,e,{get:()=>i[e],enumerable:!(o=z(i,e))||o.enumerable});return s};var P=(s,i,t)=>(t=s!=null?b(T(s)):{},c(i||!s||!s.__esModule?r(t,"default",{value:s,enumerable:!0}):t,s)),A=s=>c(r({},"__esModule",{value:!0}),s);var S={};I(S,{register:()=>g});module.exports=A(S);var m=require("./chunk-A33BI24L.cjs"),p=require("./chunk-WGSLR3I3.cjs"),l=require("./chunk-SDBEMUFI.cjs"),x=require("./chunk-IPGPEAAC.cjs"),E=require("./chunk-BRCEIAA5.cjs"),f=require("./chunk-GBSKUCZH.cjs"),O=require("./chunk-4PIN4CT5.cjs"),_=require("./chunk-I2AMOZ5V.cjs"),k=require("./chunk-UX4EDS6Q.cjs"),d=require("./chunk-W6Y3AJXU.cjs"),F=require("./chunk-CFYFLVIA.cjs"),L=`
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
`;function g(s,i){s.addArgument(new p.c("[shell]","bash, zsh or fish").choices(["bash","zsh","fish"])).option("--dir <dir>","write all three scripts into this directory instead (gsh.bash, _gsh, gsh.fish)").addHelpText("after",L).action(async function(t){let{dir:o}=this.opts();if(!t&&!o)throw new d.c("name a shell: bash, zsh or fish","For example: gsh completion bash");await(0,l.a)(this,o?`write the ${t??"bash, zsh and fish"} completion scripts into ${o}`:`print the ${t} completion script`,async e=>{let[a,{completionScript:h,COMPLETION_FILES:u,SHELLS:w}]=await Promise.all([i.docTree(),Promise.resolve().then(()=>P(require("./generated-files-L3TS5JEG.cjs")))]);if(!o){(0,f.f)(e.stdout).write(h(t,a));return}(0,m.a)(o,(t?[t]:w).map(n=>[u[n],h(n,a)]))})})}0&&(module.exports={register});
