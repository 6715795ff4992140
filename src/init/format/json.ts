// A stable shape for scripts: one `{file, problems}` per input, in input order. Lines and columns
// are 1-based; `endColumn` is the column just after the flagged text.

import type { Formatter } from './report.js';

export const json: Formatter = (reports) =>
  `${JSON.stringify(reports.map(({ file, problems }) => ({
    file,
    problems: problems.map(({ severity, rule, path, line, column, endLine, endColumn, message }) =>
      ({ severity, rule, path, line, column, endLine, endColumn, message })),
  })), null, 2)}\n`;
