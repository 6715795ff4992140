var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var o=require("node:v8"),f="gsh:v8-flags";process.emit(f,"--liftoff-only")||(0,o.setFlagsFromString)("--liftoff-only");
