// GitHub Actions workflow commands. GitHub turns only the first few of each kind per step into
// annotations, so a summary line follows that counts them all; stepSummary() is the Markdown the
// job summary ($GITHUB_STEP_SUMMARY) gets.

import type { InputFailure } from '../inputs.js';
import { countBySeverity, plural, type FileReport, type Formatter, textOf } from './report.js';
import { ruleHelpCommand } from './rule-docs.js';

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function unread(failures: readonly InputFailure[]): string {
  return failures.length === 0 ? '' : `; ${plural(failures.length, 'input')} could not be read`;
}

export const github: Formatter = (reports, options) => {
  const { failures = [], tool = 'gsh init lint' } = options;
  const text = textOf(options);
  let out = '';
  for (const failure of failures) {
    out += `::error file=${escapeProperty(failure.file)},title=${escapeProperty(tool)}::${escapeData(failure.message)}\n`;
  }
  for (const { file, problems } of reports) {
    for (const p of problems) {
      const properties = [
        `file=${escapeProperty(file)}`, `line=${p.line}`, `endLine=${p.endLine}`,
        `col=${p.column}`, `endColumn=${p.endColumn}`, `title=${escapeProperty(`${tool} (${p.rule})`)}`,
      ].join(',');
      const where = p.path === '' ? '' : ` [${text(p.path)}]`;
      out += `::${p.severity} ${properties}::${escapeData(`${text(p.message)}${where}`)}\n`;
    }
  }
  const { errors, warnings } = countBySeverity(reports);
  const files = reports.filter((r) => r.problems.length > 0).length;
  out += errors + warnings === 0
    ? `${tool}: no problems in ${plural(reports.length, 'file')}${unread(failures)}\n`
    : `${tool}: ${plural(errors, 'error')} and ${plural(warnings, 'warning')} in ${files} of ${plural(reports.length, 'file')}${unread(failures)} (GitHub annotates only the first few per step; all are listed above)\n`;
  return out;
};

/** Rows of the job summary's table; the annotations and the log carry the rest. */
export const SUMMARY_ROWS = 50;

/** Text safe in a Markdown table cell: no pipe, newline or HTML breaks out of it. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r?\n/g, ' ');
}

/** The job summary: counts, what failed the step beyond errors, unreadable inputs, a table of the first problems. */
export function stepSummary(reports: readonly FileReport[], failures: readonly InputFailure[], tier: string, verdict?: string): string {
  const { errors, warnings } = countBySeverity(reports);
  const files = reports.filter((r) => r.problems.length > 0).length;
  const lines = ['### gsh init lint', ''];
  lines.push(errors + warnings === 0
    ? `:white_check_mark: No problems in ${plural(reports.length, 'file')} (${tier} plan caps).`
    : `${errors > 0 ? ':x:' : ':warning:'} **${plural(errors, 'error')}** and **${plural(warnings, 'warning')}** in ${files} of ${plural(reports.length, 'file')} (${tier} plan caps).`);
  if (verdict !== undefined) lines.push('', `:x: ${cell(verdict)}.`);
  if (failures.length > 0) {
    lines.push('', `:x: **${plural(failures.length, 'input')} could not be read** (exit 2):`, '');
    for (const f of failures) lines.push(`- ${cell(f.message)}`);
  }
  const problems = reports.flatMap(({ file, problems }) => problems.map((p) => ({ file, p })));
  if (problems.length > 0) {
    lines.push('', '| File | Line | Severity | Rule | Problem |', '| --- | --- | --- | --- | --- |');
    for (const { file, p } of problems.slice(0, SUMMARY_ROWS)) {
      const where = p.path === '' ? '' : ` (\`${cell(p.path)}\`)`;
      lines.push(`| ${cell(file)} | ${p.line}:${p.column} | ${p.severity} | \`${p.rule}\` | ${cell(p.message)}${where} |`);
    }
    lines.push('', `\`${ruleHelpCommand()}\` explains each rule (\`${ruleHelpCommand(problems[0]!.p.rule)}\` one of them).`);
    if (problems.length > SUMMARY_ROWS) {
      lines.push('', `The first ${SUMMARY_ROWS} of ${problems.length} problems; the annotations and the step's log list them all.`);
    }
  }
  return `${lines.join('\n')}\n\n`;
}
