// The terminal format: problems grouped by file, each with the source line and a caret under the
// flagged text (after actionlint and ESLint's stylish). Colour uses plain ANSI codes.

import type { Problem } from '../problem.js';
import { atLineStart, countBySeverity, plural, type FileReport, type Formatter, textOf } from './report.js';

type Paint = (code: string, text: string) => string;

function underline(report: FileReport, p: Problem, paint: Paint, text: (s: string) => string): string {
  const raw = report.lines.lineText(p.line);
  if (raw === '' && p.column === 1) return '';
  // The line as shown (its controls as text), the caret under the flagged part of it as shown.
  const end = p.endLine === p.line ? p.endColumn : raw.length + 1;
  const source = text(raw);
  const width = Math.max(1, text(raw.slice(p.column - 1, end - 1)).length);
  const indent = text(raw.slice(0, p.column - 1)).replace(/[^\t]/g, ' ');
  const gutter = String(p.line);
  const pad = ' '.repeat(gutter.length);
  return `    ${paint('2', `${gutter} |`)} ${source}\n    ${paint('2', `${pad} |`)} ${indent}${paint(p.severity === 'error' ? '31' : '33', `^${'~'.repeat(width - 1)}`)}\n`;
}

export const stylish: Formatter = (reports, options) => {
  const { color } = options;
  const text = textOf(options);
  const paint: Paint = color ? (code, t) => `\u001b[${code}m${t}\u001b[0m` : (_code, t) => t;
  let out = '';
  for (const report of reports) {
    if (report.problems.length === 0) continue;
    out += `${paint('4', atLineStart(text(report.file)))}\n`;
    const positions = report.problems.map((p) => `${p.line}:${p.column}`);
    const width = Math.max(...positions.map((s) => s.length));
    for (const [i, p] of report.problems.entries()) {
      const severity = p.severity === 'error' ? paint('31', 'error  ') : paint('33', 'warning');
      const where = p.path === '' ? '' : ` ${paint('2', `[${text(p.path)}]`)}`;
      out += `  ${paint('2', (positions[i] ?? '').padEnd(width))}  ${severity}  ${text(p.message)}${where}  ${paint('2', p.rule)}\n`;
      out += underline(report, p, paint, text);
    }
    out += '\n';
  }
  const { errors, warnings } = countBySeverity(reports);
  if (errors + warnings > 0) {
    const summary = `✖ ${plural(errors + warnings, 'problem')} (${plural(errors, 'error')}, ${plural(warnings, 'warning')})`;
    out += `${paint(errors > 0 ? '31;1' : '33;1', summary)}\n`;
  }
  return out;
};
