import { compact } from './compact.js';
import { github } from './github.js';
import { json } from './json.js';
import type { Formatter } from './report.js';
import { sarif } from './sarif.js';
import { stylish } from './stylish.js';

import type { FormatName } from './names.js';

export { FORMAT_NAMES, type FormatName } from './names.js';

export const FORMATTERS = { stylish, compact, json, sarif, github } as const satisfies Record<FormatName, Formatter>;
