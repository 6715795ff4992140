import { compact } from './compact.js';
import { github } from './github.js';
import { json } from './json.js';
import type { Formatter } from './report.js';
import { sarif } from './sarif.js';
import { stylish } from './stylish.js';

export const FORMATTERS = { stylish, compact, json, sarif, github } as const satisfies Record<string, Formatter>;

export type FormatName = keyof typeof FORMATTERS;

export const FORMAT_NAMES = Object.keys(FORMATTERS) as FormatName[];
