var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var z=Object.create;var r=Object.defineProperty;var v=Object.getOwnPropertyDescriptor;var y=Object.getOwnPropertyNames;var S=Object.getPrototypeOf,T=Object.prototype.hasOwnProperty;var I=(t,s)=>{for(var i in s)r(t,i,{get:s[i],enumerable:!0})},m=(t,s,i,o)=>{if(s&&typeof s=="object"||typeof s=="function")for(let e of y(s))!T.call(t,e)&&e!==i&&r(t,e,{get:()=>s[e],enumerable:!(o=v(s,e))||o.enumerable});return t};var l=(t,s,i)=>(i=t!=null?z(S(t)):{},m(s||!t||!t.__esModule?r(i,"default",{value:t,enumerable:!0}):i,t)),A=t=>m(r({},"__esModule",{value:!0}),t);var P={};I(P,{register:()=>u});module.exports=A(P);var p=require("./chunk-WGSLR3I3.cjs"),f=require("./chunk-YQECI3T5.cjs"),k=require("./chunk-IPGPEAAC.cjs"),x=require("./chunk-623VEX4U.cjs"),d=require("./chunk-OJV5QQQO.cjs"),E=require("./chunk-CFYFLVIA.cjs"),a=require("node:fs"),g=require("node:path"),L=`
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
`;function u(t){t.addArgument(new p.c("[shell]","bash, zsh or fish").choices(["bash","zsh","fish"])).option("--dir <dir>","write all three scripts into this directory instead (gsh.bash, _gsh, gsh.fish)").addHelpText("after",L).action(async function(s){let{dir:i}=this.opts();if(!s&&!i)throw new d.c("name a shell: bash, zsh or fish","For example: gsh completion bash");await(0,f.a)(this,i?`write the ${s??"bash, zsh and fish"} completion scripts into ${i}`:`print the ${s} completion script`,async o=>{let[{loadDocTree:e},{completionScript:h,COMPLETION_FILES:w,SHELLS:b}]=await Promise.all([Promise.resolve().then(()=>l(require("./command-tree-XWLUCHAJ.cjs"))),Promise.resolve().then(()=>l(require("./generated-files-NNUERY7M.cjs")))]),n=await e();if(!i){o.stdout.write(h(s,n));return}(0,a.mkdirSync)(i,{recursive:!0});for(let c of s?[s]:b)(0,a.writeFileSync)((0,g.join)(i,w[c]),h(c,n))})})}0&&(module.exports={register});
