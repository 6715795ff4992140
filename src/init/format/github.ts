// GitHub Actions workflow commands. GitHub turns only the first few of each kind per step into
// annotations, so a summary line follows that counts them all.

import { countBySeverity, plural, type Formatter } from './report.js';

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export const github: Formatter = (reports) => {
  let out = '';
  for (const { file, problems } of reports) {
    for (const p of problems) {
      const properties = [
        `file=${escapeProperty(file)}`, `line=${p.line}`, `endLine=${p.endLine}`,
        `col=${p.column}`, `endColumn=${p.endColumn}`, `title=${escapeProperty(`gsh init lint (${p.rule})`)}`,
      ].join(',');
      const where = p.path === '' ? '' : ` [${p.path}]`;
      out += `::${p.severity} ${properties}::${escapeData(`${p.message}${where}`)}\n`;
    }
  }
  const { errors, warnings } = countBySeverity(reports);
  const files = reports.filter((r) => r.problems.length > 0).length;
  out += errors + warnings === 0
    ? `gsh init lint: no problems in ${plural(reports.length, 'file')}\n`
    : `gsh init lint: ${plural(errors, 'error')} and ${plural(warnings, 'warning')} in ${files} of ${plural(reports.length, 'file')} (GitHub annotates only the first few per step; all are listed above)\n`;
  return out;
};
