var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var b=Object.create;var r=Object.defineProperty;var z=Object.getOwnPropertyDescriptor;var v=Object.getOwnPropertyNames;var y=Object.getPrototypeOf,S=Object.prototype.hasOwnProperty;var T=(s,e)=>{for(var t in e)r(s,t,{get:e[t],enumerable:!0})},m=(s,e,t,i)=>{if(e&&typeof e=="object"||typeof e=="function")for(let o of v(e))!S.call(s,o)&&o!==t&&r(s,o,{get:()=>e[o],enumerable:!(i=z(e,o))||i.enumerable});return s};var I=(s,e,t)=>(t=s!=null?b(y(s)):{},m(e||!s||!s.__esModule?r(t,"default",{value:s,enumerable:!0}):t,s)),P=s=>m(r({},"__esModule",{value:!0}),s);var L={};T(L,{register:()=>g});module.exports=P(L);var l=require("./chunk-WGSLR3I3.cjs"),p=require("./chunk-37ATTBDY.cjs"),k=require("./chunk-IPGPEAAC.cjs"),x=require("./chunk-623VEX4U.cjs"),f=require("./chunk-OJV5QQQO.cjs"),E=require("./chunk-CFYFLVIA.cjs"),h=require("node:fs"),d=require("node:path"),A=`
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
`;function g(s,e){s.addArgument(new l.c("[shell]","bash, zsh or fish").choices(["bash","zsh","fish"])).option("--dir <dir>","write all three scripts into this directory instead (gsh.bash, _gsh, gsh.fish)").addHelpText("after",A).action(async function(t){let{dir:i}=this.opts();if(!t&&!i)throw new f.c("name a shell: bash, zsh or fish","For example: gsh completion bash");await(0,p.a)(this,i?`write the ${t??"bash, zsh and fish"} completion scripts into ${i}`:`print the ${t} completion script`,async o=>{let[a,{completionScript:n,COMPLETION_FILES:u,SHELLS:w}]=await Promise.all([e.docTree(),Promise.resolve().then(()=>I(require("./generated-files-VOLRPAWC.cjs")))]);if(!i){o.stdout.write(n(t,a));return}(0,h.mkdirSync)(i,{recursive:!0});for(let c of t?[t]:w)(0,h.writeFileSync)((0,d.join)(i,u[c]),n(c,a))})})}0&&(module.exports={register});
