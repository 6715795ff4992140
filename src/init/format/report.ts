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
  /**
   * How text from the files (names, messages, paths, quoted lines) is shown in the text formats:
   * the caller passes the terminal door's oneLine() (core/terminal/terminal-text.ts), so a file's
   * escape sequences show as text and its CR and LF cannot start a line of the report (a CI log
   * reads a line starting `::` as a workflow command). JSON and SARIF escape text themselves.
   */
  text?: (s: string) => string;
}

/** The text of a file as the report shows it (as it is when the caller gave no rule). */
export function textOf(options: FormatOptions): (s: string) => string {
  return options.text ?? ((s) => s);
}

/**
 * A file name that starts a line of a text report: `./` before one that begins with `::`, the
 * same file, so that only gsh's own annotations (the github format) start a line with `::`.
 */
export function atLineStart(name: string): string {
  return name.startsWith('::') ? `./${name}` : name;
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
