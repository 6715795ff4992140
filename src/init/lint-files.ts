// Lints one file of `gsh init lint`: read once (a directory's files head first, so a file that is
// not a manifest costs 64 bytes), then linted, with only what its report needs kept.

import type { Tier } from './caps.js';
import { type InputFailure, looksLikeManifest, readFileOnce } from './inputs.js';
import { lintBytes } from './lint.js';
import type { Problem } from './problem.js';

/** A file to lint. */
export interface FileJob {
  path: string;
  /** Found under a directory: skipped unless it looks like a manifest. */
  fromDir: boolean;
}

export interface LintSettings {
  tier: Tier;
  /** --only-manifests: files given by name are skipped too when they are not manifests. */
  onlyManifests: boolean;
}

/**
 * What one file gave. `text` is the decoded source, kept only where there are problems (only
 * formatters quoting a problem's line read it), so clean files keep nothing until the report.
 */
export type FileOutcome =
  | { problems: Problem[]; text: string }
  | { skipped: true }
  | { error: InputFailure; early: boolean };

export function lintFile(job: FileJob, settings: LintSettings): FileOutcome {
  const read = readFileOnce(job.path, job.fromDir);
  if (!('bytes' in read)) return read;
  if (settings.onlyManifests && !job.fromDir && !looksLikeManifest(read.bytes)) return { skipped: true };
  const { problems, lines } = lintBytes(read.bytes, settings.tier);
  return { problems, text: problems.length > 0 ? lines.text : '' };
}
