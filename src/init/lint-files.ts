// Lints files from a shared queue: the main thread and any lint workers (lint-worker.ts) run this
// same loop, each taking the next index until none is left, so a slow file never holds up the rest.

import type { Tier } from './caps.js';
import { type InputFailure, looksLikeManifest, readFileOnce } from './inputs.js';
import { lintBytes } from './lint.js';
import type { Problem } from './problem.js';

/** A file to lint, as it can cross to a worker. */
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
 * formatters quoting a problem's line read it), so clean files cost nothing to send back.
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

/** Lints jobs[next()] until next() runs past the end; returns [index, outcome] pairs. */
export function lintQueue(jobs: readonly FileJob[], next: () => number, settings: LintSettings): Array<[number, FileOutcome]> {
  const done: Array<[number, FileOutcome]> = [];
  for (let i = next(); i < jobs.length; i = next()) done.push([i, lintFile(jobs[i]!, settings)]);
  return done;
}
