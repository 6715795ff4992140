// Many files are linted on every core: the main thread and up to (cores - 1) worker threads take
// files from one shared queue. A worker costs a thread and its own load of the linter (tens of
// milliseconds), so a few files are linted on the main thread alone.

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type FileJob, type FileOutcome, type LintSettings, lintFile, lintQueue } from './lint-files.js';
import type { LintWorkerData } from './lint-worker.js';

/** Below this many files a worker's start-up costs more than it saves. */
export const WORKER_MIN_FILES = 48;
/** Each worker should get at least this many files. */
const FILES_PER_WORKER = 24;
const MAX_WORKERS = 7;

/**
 * The worker's entry, next to cli.js in the bundle (this module is a chunk in dist/chunks/). Run
 * from the sources (the tests), there is no built worker and every file is linted here.
 */
const WORKER_ENTRY = new URL('../lint-worker.js', import.meta.url);

function workerCount(files: number): number {
  if (files < WORKER_MIN_FILES || !existsSync(fileURLToPath(WORKER_ENTRY))) return 0;
  return Math.max(0, Math.min(availableParallelism() - 1, MAX_WORKERS, Math.floor(files / FILES_PER_WORKER) - 1));
}

/** Lints every job (on workers when there are enough) and returns the outcomes in job order. */
export async function lintAll(jobs: readonly FileJob[], settings: LintSettings): Promise<FileOutcome[]> {
  const outcomes = new Array<FileOutcome | undefined>(jobs.length);
  const workers = workerCount(jobs.length);
  const counter = new SharedArrayBuffer(4);
  const next = new Int32Array(counter);
  const take = () => Atomics.add(next, 0, 1);
  const pending: Array<Promise<Array<[number, FileOutcome]>>> = [];
  if (workers > 0) {
    const { Worker } = await import('node:worker_threads');
    const data: LintWorkerData = { jobs: [...jobs], settings, counter };
    for (let w = 0; w < workers; w++) {
      pending.push(
        new Promise((resolve) => {
          const worker = new Worker(WORKER_ENTRY, { workerData: data });
          let result: Array<[number, FileOutcome]> = [];
          worker.once('message', (done: Array<[number, FileOutcome]>) => (result = done));
          // A worker that fails gives back what it finished; its other files are linted below.
          worker.once('error', () => resolve(result));
          worker.once('exit', () => resolve(result));
        }),
      );
    }
  }
  // The main thread works the queue too, while the workers start.
  for (const [i, outcome] of lintQueue(jobs, take, settings)) outcomes[i] = outcome;
  for (const done of await Promise.all(pending)) for (const [i, outcome] of done) outcomes[i] = outcome;
  return outcomes.map((outcome, i) => outcome ?? lintFile(jobs[i]!, settings));
}
