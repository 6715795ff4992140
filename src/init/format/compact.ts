// One line per problem, for pipes and editors: `file:line:col: severity: message [path] (rule)`.

import type { Formatter } from './report.js';

export const compact: Formatter = (reports) => {
  let out = '';
  for (const { file, problems } of reports) {
    for (const p of problems) {
      out += `${file}:${p.line}:${p.column}: ${p.severity}: ${p.message} [${p.path}] (${p.rule})\n`;
    }
  }
  return out;
};
