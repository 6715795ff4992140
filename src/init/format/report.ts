import type { InputFailure } from '../inputs.js';
import type { LineIndex } from '../line-index.js';
import type { Problem } from '../problem.js';

/** The findings for one input, as every formatter receives them. */
export interface FileReport {
  /** The name shown for the input: the path as given, or the stdin name. */
  file: string;
  problems: Problem[];
  /** The decoded source, for formatters that quote lines. */
  lines: LineIndex;
}

export interface FormatOptions {
  color: boolean;
  /** Inputs that could not be read (the run exits 2); formats that can say so do. */
  failures?: readonly InputFailure[];
  /** The absolute directory relative input paths are resolved against (SARIF's %SRCROOT%). */
  srcRoot?: string;
  /** The linter's name in annotations and SARIF (default `gsh init lint`; `gsh config lint` reuses these formats). */
  tool?: string;
}

export type Formatter = (reports: readonly FileReport[], options: FormatOptions) => string;

export function countBySeverity(reports: readonly FileReport[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const report of reports) {
    for (const problem of report.problems) {
      if (problem.severity === 'error') errors++;
      else warnings++;
    }
  }
  return { errors, warnings };
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
