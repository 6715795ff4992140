var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var i=require("./chunk-TFSNCRQK.cjs"),m=require("./chunk-CFYFLVIA.cjs");
