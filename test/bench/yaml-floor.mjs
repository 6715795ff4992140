// The floor of `gsh init lint PATH`: the same file, or the files of the same directory in name
// order, read and parsed by yaml alone (the browser build the bundle carries, with the linter's
// options), and nothing else.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from '../../node_modules/yaml/browser/index.js';

const path = process.argv[2];
const files = statSync(path).isDirectory() ? readdirSync(path).sort().map((name) => join(path, name)) : [path];
for (const file of files) parseAllDocuments(readFileSync(file, 'utf8'), { uniqueKeys: false, prettyErrors: false });
