import type { Dispatcher } from 'undici';
import { fileStore, type ConfigStore } from '../auth/store.js';
import type { Env, InStream, OutStream } from '../terminal/streams.js';

// Everything a command may touch outside itself (ARCHITECTURE.md "Plan, then execute"): the streams
// with their terminal facts, the environment, time, the HTTP dispatcher, the auth store and the
// signals. src/cli.ts builds one from `process`; tests build their own and call run(argv, ctx),
// so no command reads `process` directly.

export interface Clock {
  now(): number;
  /** A pause; `signal` (Ctrl-C) may end it early, and then nothing of it keeps the process alive. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export type SignalName = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'SIGQUIT';

export interface Signals {
  on(signal: SignalName, listener: () => void): unknown;
  off(signal: SignalName, listener: () => void): unknown;
}

export interface Context {
  stdin: InStream;
  stdout: OutStream;
  stderr: OutStream;
  env: Env;
  clock: Clock;
  /** Carries every API request; absent: each command makes its own (proxy-aware) agent. */
  dispatcher?: Dispatcher;
  store: ConfigStore;
  signals: Signals;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** The context of the real process (only src/cli.ts calls this). */
export function processContext(): Context {
  let restoresTerminal = false;
  return {
    // Read when used: process.stdin builds a stream (a socket for a pipe) most commands never read.
    get stdin() {
      const stdin = process.stdin;
      if (!restoresTerminal) {
        restoresTerminal = true;
        // However the process ends, a terminal left in raw mode (a prompt, console attach) is put back.
        process.once('exit', () => {
          if (stdin.isTTY && stdin.isRaw) stdin.setRawMode(false);
        });
      }
      return stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    clock: realClock,
    store: fileStore(process.env),
    signals: process,
  };
}
