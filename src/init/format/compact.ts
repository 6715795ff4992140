// One line per problem, for pipes and editors: `file:line:col: severity: message [path] (rule)`.

import { atLineStart, type Formatter, textOf } from './report.js';

export const compact: Formatter = (reports, options) => {
  const text = textOf(options);
  let out = '';
  for (const { file, problems } of reports) {
    for (const p of problems) {
      out += `${atLineStart(text(file))}:${p.line}:${p.column}: ${p.severity}: ${text(p.message)} [${text(p.path)}] (${p.rule})\n`;
    }
  }
  return out;
};
