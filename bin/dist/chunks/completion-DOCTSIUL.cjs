var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var z=Object.create;var r=Object.defineProperty;var v=Object.getOwnPropertyDescriptor;var T=Object.getOwnPropertyNames;var y=Object.getPrototypeOf,A=Object.prototype.hasOwnProperty;var I=(s,o)=>{for(var t in o)r(s,t,{get:o[t],enumerable:!0})},m=(s,o,t,e)=>{if(o&&typeof o=="object"||typeof o=="function")for(let i of T(o))!A.call(s,i)&&i!==t&&r(s,i,{get:()=>o[i],enumerable:!(e=v(o,i))||e.enumerable});return s};var L=(s,o,t)=>(t=s!=null?z(y(s)):{},m(o||!s||!s.__esModule?r(t,"default",{value:s,enumerable:!0}):t,s)),P=s=>m(r({},"__esModule",{value:!0}),s);var $={};I($,{register:()=>u});module.exports=P($);var p=require("./chunk-WGSLR3I3.cjs"),l=require("./chunk-H6WEAIU5.cjs"),E=require("./chunk-IPGPEAAC.cjs"),O=require("./chunk-BRCEIAA5.cjs"),a=require("./chunk-YGAI7REA.cjs"),f=require("./chunk-IRGJJNXL.cjs"),_=require("./chunk-WWVJ2PT3.cjs"),k=require("./chunk-I2AMOZ5V.cjs"),d=require("./chunk-T7CLMXQW.cjs"),F=require("./chunk-CFYFLVIA.cjs"),g=require("node:path"),S=`
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
`;function u(s,o){s.addArgument(new p.c("[shell]","bash, zsh or fish").choices(["bash","zsh","fish"])).option("--dir <dir>","write all three scripts into this directory instead (gsh.bash, _gsh, gsh.fish)").addHelpText("after",S).action(async function(t){let{dir:e}=this.opts();if(!t&&!e)throw new d.c("name a shell: bash, zsh or fish","For example: gsh completion bash");await(0,l.a)(this,e?`write the ${t??"bash, zsh and fish"} completion scripts into ${e}`:`print the ${t} completion script`,async i=>{let[h,{completionScript:n,COMPLETION_FILES:w,SHELLS:b}]=await Promise.all([o.docTree(),Promise.resolve().then(()=>L(require("./generated-files-EKJFXJ4P.cjs")))]);if(!e){(0,f.f)(i.stdout).write(n(t,h));return}(0,a.e)(e);for(let c of t?[t]:b)(0,a.a)((0,g.join)(e,w[c]),n(c,h),{mode:420})})})}0&&(module.exports={register});
