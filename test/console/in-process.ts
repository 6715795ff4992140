import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { realClock, type Context } from '../../src/core/run/context.js';
import { fileStore } from '../../src/core/auth/store.js';
import { run } from '../../src/program.js';
import type { Sandbox } from '../../src/sandbox/index.js';

// Runs gsh in this process (program.ts run(argv, ctx)) against a sandbox: pipes for stdin,
// stdout and stderr (no terminal), the sandbox's URL and key, a throwaway config directory, and
// an EventEmitter for signals, so a test can send SIGINT without touching the process.

export interface InProcess {
  ctx: Context;
  stdin: PassThrough;
  signals: EventEmitter;
  stdout(): string;
  stderr(): string;
  run(argv: string[]): Promise<number>;
  /** Resolves once stderr matches (the command is still running). */
  waitForStderr(re: RegExp, timeoutMs?: number): Promise<void>;
  /** Removes the config directory. */
  dispose(): void;
}

function pipe(): PassThrough & { isTTY: false } {
  return Object.assign(new PassThrough(), { isTTY: false as const });
}

export function inProcess(sandbox: Sandbox): InProcess {
  const configDir = mkdtempSync(join(tmpdir(), 'gsh-console-'));
  const env = { GSH_BASE_URL: sandbox.baseUrl, GSH_API_KEY: sandbox.keys.all, GSH_CONFIG_DIR: configDir };
  const stdin = pipe();
  const stdout = pipe();
  const stderr = pipe();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  const signals = new EventEmitter();
  const ctx: Context = { stdin, stdout, stderr, env, clock: realClock, store: fileStore(env), signals };
  return {
    ctx,
    stdin,
    signals,
    stdout: () => out,
    stderr: () => err,
    run: (argv) => run(argv, ctx),
    waitForStderr: (re, timeoutMs = 10_000) => until(() => re.test(err), timeoutMs, `stderr matching ${re}; got ${JSON.stringify(err)}`),
    dispose: () => rmSync(configDir, { recursive: true, force: true }),
  };
}

export async function until(cond: () => boolean, timeoutMs = 10_000, what = 'a condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `p`, or a failure naming `what` when it has not settled within `ms` (a hung command fails fast). */
export function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)));
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}
