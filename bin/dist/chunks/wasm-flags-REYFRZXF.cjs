var __gsh_meta={get url(){return require('node:url').pathToFileURL(__filename).href}};
var i=require("./chunk-W44DAWHW.cjs"),m=require("./chunk-WF43ZFLW.cjs"),o=require("./chunk-CFYFLVIA.cjs");
