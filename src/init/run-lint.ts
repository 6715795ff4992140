// `gsh init lint`: options and I/O around lintBytes, kept apart from commander so tests can drive
// it without a process. Exit codes (ARCHITECTURE.md "Exit codes"): 0 clean (warnings alone do not
// fail unless --max-warnings is exceeded), 1 problems found, 2 usage or I/O error.

import { resolve } from 'node:path';
import { appendToFile } from '../core/disk/disk.js';
import { Exit, UsageError } from '../core/errors.js';
import { DEFAULT_TIER, TIERS, type Tier } from './caps.js';
import { choice } from './choice.js';
import { FORMAT_NAMES, FORMATTERS, type FormatName } from './format/index.js';
import { stepSummary } from './format/github.js';
import { countBySeverity, type FileReport } from './format/report.js';
import { expandInputs, type InputFailure, looksLikeManifest, readFileOnce } from './inputs.js';
import { lintBytes } from './lint.js';
import { LineIndex } from './line-index.js';

export interface LintOptions {
  inputs: string[];
  format?: string;
  tier?: string;
  quiet?: boolean;
  maxWarnings?: string | number;
  stdinFilename?: string;
  onlyManifests?: boolean;
}

export interface LintIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stdout is a terminal: picks the default format. */
  isTTY: boolean;
  /** ANSI colour in the stylish format (decided by core/terminal/io.ts colorEnabled). */
  color: boolean;
  readStdin: () => Promise<Uint8Array>;
  /** $GITHUB_STEP_SUMMARY: the file --format github appends its Markdown job summary to. */
  stepSummary?: string;
  /** How the files' text is shown in the text formats (format/report.ts FormatOptions.text). */
  text?: (s: string) => string;
}

interface Settings {
  format: FormatName;
  tier: Tier;
  maxWarnings: number | undefined;
  color: boolean;
}

function settings(opts: LintOptions, io: LintIo): Settings {
  if (opts.inputs.length === 0) {
    throw new UsageError('give a manifest file, a directory or - for stdin', 'Example: gsh init lint server.yaml');
  }
  if (opts.inputs.filter((input) => input === '-').length > 1) throw new UsageError('stdin (-) can be read only once');
  if (opts.stdinFilename !== undefined && !opts.inputs.includes('-')) {
    throw new UsageError('--stdin-filename names stdin; add - to the inputs');
  }
  let maxWarnings: number | undefined;
  if (opts.maxWarnings !== undefined) {
    maxWarnings = Number(opts.maxWarnings);
    if (!Number.isInteger(maxWarnings) || maxWarnings < 0) {
      throw new UsageError(`--max-warnings must be a whole number of at least 0; got '${String(opts.maxWarnings)}'`);
    }
  }
  return {
    format: choice(opts.format ?? (io.isTTY ? 'stylish' : 'compact'), FORMAT_NAMES, '--format'),
    tier: choice(opts.tier ?? DEFAULT_TIER, TIERS, '--tier'),
    maxWarnings,
    color: io.color,
  };
}

const NO_LINES = new LineIndex('');

export async function runLint(opts: LintOptions, io: LintIo): Promise<number> {
  const config = settings(opts, io);
  const entries = expandInputs(opts.inputs, opts.stdinFilename ?? '<stdin>');
  const reports: FileReport[] = [];
  // Arguments that could not be read and files that could not be opened, in argument order, then
  // files that failed part-way (the order of the days when heads were read first).
  const earlyErrors: InputFailure[] = [];
  const lateErrors: InputFailure[] = [];
  // Directory arguments, each with whether a manifest was found under it (one that failed while
  // being read counts: it was a manifest). A directory's files follow it in `entries`.
  const dirs: Array<{ dir: string; found: boolean }> = [];
  for (const entry of entries) {
    if ('error' in entry) earlyErrors.push(entry.error);
    else if ('dir' in entry) dirs.push({ dir: entry.dir, found: false });
    else {
      const { input } = entry;
      const fromDir = input.dir !== undefined;
      const read = input.path === undefined ? { bytes: await io.readStdin() } : readFileOnce(input.path, fromDir);
      if ('skipped' in read) continue;
      if ('error' in read) {
        (read.early ? earlyErrors : lateErrors).push(read.error);
        if (!read.early && fromDir) dirs.at(-1)!.found = true;
        continue;
      }
      if (opts.onlyManifests && !fromDir && !looksLikeManifest(read.bytes)) continue;
      const { problems, lines } = lintBytes(read.bytes, config.tier);
      // Only formatters quoting a problem's line read the source: a clean file keeps none of it.
      reports.push({ file: input.name, problems, lines: problems.length > 0 ? lines : NO_LINES });
      if (fromDir) dirs.at(-1)!.found = true;
    }
  }
  const ioErrors = [...earlyErrors, ...lateErrors];
  const emptyDirs = dirs.flatMap(({ dir, found }) => (found ? [] : [dir]));
  const { errors, warnings } = countBySeverity(reports);
  const shown = opts.quiet
    ? reports.map((report) => ({ ...report, problems: report.problems.filter((p) => p.severity === 'error') }))
    : reports;
  io.stdout(FORMATTERS[config.format](shown, { color: config.color, failures: ioErrors, srcRoot: resolve(), ...(io.text ? { text: io.text } : {}) }));
  // The caps decide what passes: the terminal format says which were used (piped output stays quiet).
  if (config.format === 'stylish' && reports.length > 0) {
    io.stderr(`gsh init lint: ${reports.length} manifest${reports.length === 1 ? '' : 's'} checked at the ${config.tier} caps${opts.tier === undefined ? ' (the default; --tier free for a free server)' : ''}\n`);
  }
  const tooManyWarnings = config.maxWarnings !== undefined && warnings > config.maxWarnings;
  const overWarnings = `${warnings === 1 ? '1 warning exceeds' : `${warnings} warnings exceed`} --max-warnings ${config.maxWarnings}`;
  if (config.format === 'github' && io.stepSummary) {
    appendSummary(io, stepSummary(shown, ioErrors, config.tier, tooManyWarnings ? overWarnings : undefined));
  }
  for (const dir of emptyDirs) io.stderr(`gsh init lint: no manifests (files starting with #service-init) under ${dir}\n`);
  for (const { message } of ioErrors) io.stderr(`gsh init lint: ${message}\n`);
  if (tooManyWarnings) io.stderr(`gsh init lint: ${overWarnings}\n`);
  if (ioErrors.length > 0) return Exit.usage;
  return errors > 0 || tooManyWarnings ? Exit.error : Exit.ok;
}

/**
 * Appended, never overwritten: other steps' summaries share the file. A summary that cannot be
 * written is said on stderr but does not change the verdict, which the annotations already carry.
 */
function appendSummary(io: LintIo, markdown: string): void {
  try {
    appendToFile(io.stepSummary as string, markdown);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    io.stderr(`gsh init lint: cannot append the job summary to ${io.stepSummary as string} (${code}); the annotations above still stand\n`);
  }
}
