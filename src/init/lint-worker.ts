// Entry of a lint worker thread (its own file in dist/, see the build script): it takes files from
// the queue it shares with the main thread and the other workers, and posts back what each gave.

import { parentPort, workerData } from 'node:worker_threads';
import { type FileJob, type LintSettings, lintQueue } from './lint-files.js';

export interface LintWorkerData {
  jobs: FileJob[];
  settings: LintSettings;
  /** One Int32: the next index to take, shared by every thread through Atomics. */
  counter: SharedArrayBuffer;
}

const { jobs, settings, counter } = workerData as LintWorkerData;
const next = new Int32Array(counter);
parentPort!.postMessage(lintQueue(jobs, () => Atomics.add(next, 0, 1), settings));
