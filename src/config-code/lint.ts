// `gsh config lint`: declaration files checked offline (files.ts), reported in the formats of
// `gsh init lint` (init/format). Exit 0 clean (warnings alone do not fail), 1 problems, 2 usage.

import { Exit, UsageError } from '../core/errors.js';
import { oneLine } from '../core/terminal/terminal-text.js';
import { FORMAT_NAMES, FORMATTERS, type FormatName } from '../init/format/index.js';
import type { FileReport } from '../init/format/report.js';
import { type DeclFile, expandPaths, loadFile, loadLibraries } from './files.js';

export async function lintReport(files: readonly DeclFile[], format: FormatName, color: boolean): Promise<string> {
  const reports: FileReport[] = files.map((f) => ({ file: f.path, problems: f.problems, lines: f.lines }));
  // Files come from pull requests: their text reaches a terminal or a CI log through the door.
  return FORMATTERS[format](reports, { color, tool: 'gsh config lint', text: oneLine });
}

export interface ConfigLintIo {
  stdout: (text: string) => void;
  isTTY: boolean;
  color: boolean;
}

export async function runConfigLint(paths: string[], opts: { format?: string }, io: ConfigLintIo): Promise<number> {
  const format = (opts.format ?? (io.isTTY ? 'stylish' : 'compact')) as FormatName;
  if (!FORMAT_NAMES.includes(format)) throw new UsageError(`--format must be one of ${FORMAT_NAMES.join(', ')}`);
  await loadLibraries();
  const files = expandPaths(paths).map(loadFile);
  io.stdout(await lintReport(files, format, io.color));
  return files.some((f) => f.problems.some((p) => p.severity === 'error')) ? Exit.error : Exit.ok;
}
