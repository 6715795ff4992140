import type { RuleId, Severity } from './rules.js';

/** One finding. Lines and columns are 1-based; columns count UTF-16 code units (as SARIF does). */
export interface Problem {
  severity: Severity;
  rule: RuleId;
  /** Field path in the contract's form (`assets[0].size`); empty for the document itself. */
  path: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
}

/** Source offsets [start, end) of the text a problem points at. */
export interface Span {
  start: number;
  end: number;
}

export function compareProblems(a: Problem, b: Problem): number {
  return a.line - b.line || a.column - b.column || byCodeUnits(a.rule, b.rule) || byCodeUnits(a.path, b.path);
}

/** Not localeCompare: its first call sets up ICU collation, a measurable share of a lint run. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
