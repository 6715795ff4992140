import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>{if(/^(node:)?http2$/.test(m))throw Error('gsh does not use HTTP/2');return/^(node:)?child_process$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m)},__r);
import{a as n}from"./chunk-N7KA3ZPD.js";import"./chunk-J3CTNU3K.js";import"./chunk-5NUSP5DK.js";import{c as i}from"./chunk-H6WJT4CN.js";import"./chunk-AFG6BZBD.js";import{mkdirSync as p,readdirSync as d,rmSync as f,writeFileSync as l}from"node:fs";import{join as s}from"node:path";var u=`
Examples:
  $ gsh man servers | man -l -
  $ gsh man --dir ~/.local/share/man/man1

The same pages ship in the package's man/ folder.
`;function S(m){m.argument("[command]","a top-level command such as servers (default: the gsh.1 overview)").option("--dir <dir>","write every page into this directory (and remove gsh-*.1 pages of commands that no longer exist)").addHelpText("after",u).action(async function(a){let{dir:e}=this.opts();if(a&&e)throw new i("--dir writes every page; give no command with it");await n(this,e?`write every manual page into ${e}`:`print the manual page ${a?`gsh-${a}.1`:"gsh.1"}`,async c=>{let[{loadDocTree:g},{manPages:h}]=await Promise.all([import("./command-tree-FMX4Q3SE.js"),import("./man-2YZFKNEN.js")]),r=h(await g());if(!e){let t=a?`gsh-${a}.1`:"gsh.1",o=r.get(t);if(!o)throw new i(`no command named "${a}"`,"See gsh --help for the commands.");c.stdout.write(o);return}p(e,{recursive:!0});for(let t of d(e))/^gsh(-.*)?\.1$/.test(t)&&!r.has(t)&&f(s(e,t));for(let[t,o]of r)l(s(e,t),o)})})}export{S as register};
