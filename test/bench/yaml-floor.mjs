// The floor of `gsh init lint DIR`: the same files read and parsed by yaml alone (the browser build
// the bundle carries, with the linter's options), in name order, and nothing else.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from '../../node_modules/yaml/browser/index.js';

const dir = process.argv[2];
for (const name of readdirSync(dir).sort()) {
  parseAllDocuments(readFileSync(join(dir, name), 'utf8'), { uniqueKeys: false, prettyErrors: false });
}
