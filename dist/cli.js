import{createRequire as __c}from'node:module';const __r=__c(import.meta.url),require=Object.assign(m=>/^(node:)?(child_process|http2)$/.test(m)?new Proxy({},{get:(t,k)=>__r(m)[k]}):__r(m),__r);
import{a as t}from"./chunks/chunk-4NOPMWZG.js";import"./chunks/chunk-JPBGQWYY.js";function n(r,o){r.on("error",e=>{e.code==="EPIPE"&&process.exit(0),r!==process.stderr&&process.stderr.write(`gsh: cannot write to ${o}: ${e.code??e.message}
`),process.exit(1)})}function i(r){let o=e=>{let s=e;process.stderr.write(`gsh: internal error: ${String(s?.message??e)} (run with --debug and report it)
`),r.includes("--debug")&&s?.stack&&process.stderr.write(`${s.stack}
`),process.exit(1)};process.on("uncaughtException",o),process.on("unhandledRejection",o)}async function d(r=process.argv.slice(2)){if(n(process.stdout,"standard output"),n(process.stderr,"standard error"),i(r),r.length===1&&(r[0]==="--version"||r[0]==="-V"))return process.stdout.write(`${t}
`),0;let[{run:o},{processContext:e}]=await Promise.all([import("./chunks/program-KCAO2UV6.js"),import("./chunks/context-VOLFBROO.js")]);return o(r,e())}export{d as main};
