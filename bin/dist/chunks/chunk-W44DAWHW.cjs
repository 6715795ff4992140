var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var o=require("./chunk-WF43ZFLW.cjs"),f=require("node:v8");process.emit(o.a,"--liftoff-only")||(0,f.setFlagsFromString)("--liftoff-only");
