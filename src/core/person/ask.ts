import { InterruptedError, UsageError } from '../errors.js';
import type { Streams } from '../terminal/io.js';
import { readAll } from '../terminal/streams.js';

// The person door (ARCHITECTURE.md "Doors"): every question gsh asks a person (a confirmation,
// the ad view, a key, "Announce anyway?") is asked here and its keys are read here, nowhere else
// (test/unit/person-door.test.ts). The question goes to stderr; what the person types is echoed
// there by readline, or not at all for a secret. Ctrl-C at a question is not a keystroke to
// cancel with: the terminal is in raw mode, so the key reaches the question and not the signal
// handler, and the door hands it to the run as the SIGINT it stands for (Asker.interrupt). Every
// listener of the run hears it as it would hear the signal: a fleet lists every target and
// prints the rest line, and the run exits 130 whichever question it was at.

/** What the door needs of a run (core/run/runtime.ts implements it). */
export interface Asker {
  readonly io: Streams;
  /** Ctrl-C pressed: what SIGINT does to the run (every listener of its signal hub hears it). */
  interrupt(signal: 'SIGINT'): void;
  /** Aborted when the run is interrupted: the question under way ends with the signal's reason. */
  readonly interruptSignal?: AbortSignal;
  /** Runs work so that SIGINT and SIGTERM from outside (kill) end it too. */
  interruptible?<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * One question at a time on a terminal: servers of a fleet that each need an ad view ask in
 * turn instead of drawing over each other's question.
 */
const asking = new WeakMap<object, Promise<unknown>>();

function oneAtATime<T>(a: Asker, ask: () => Promise<T>): Promise<T> {
  const before = asking.get(a.io.stdin) ?? Promise.resolve();
  const turn = before.catch(() => {}).then(() => {
    const reason = a.interruptSignal?.aborted ? a.interruptSignal.reason : undefined;
    if (reason !== undefined) throw reason;
    return a.interruptible ? a.interruptible(ask) : ask();
  });
  asking.set(a.io.stdin, turn);
  return turn;
}

/** Ctrl-C at a question: the run's interrupt, and the error the question ends with. */
function pressedCtrlC(a: Asker): unknown {
  a.interrupt('SIGINT');
  return a.interruptSignal?.aborted ? a.interruptSignal.reason : new InterruptedError('SIGINT');
}

/**
 * A line typed at `question`, trimmed; undefined when input ends first (Ctrl-D). Ctrl-C ends
 * the run as SIGINT does (see above). `lead`: lines about it, shown when its turn comes.
 */
export function askLine(a: Asker, question: string, opts: { lead?: string } = {}): Promise<string | undefined> {
  return oneAtATime(a, async () => {
    // What the question is about, written when its turn comes (not over another's question).
    if (opts.lead) a.io.stderr.write(opts.lead);
    const { createInterface } = await import('node:readline');
    const rl = createInterface({ input: a.io.stdin, output: a.io.rawStderr });
    return new Promise<string | undefined>((resolve, reject) => {
      let settled = false;
      const end = (finish: () => void) => {
        if (settled) return;
        settled = true;
        a.interruptSignal?.removeEventListener('abort', onAbort);
        rl.close();
        finish();
      };
      const onAbort = () => end(() => reject(a.interruptSignal?.reason));
      // readline emits SIGINT for the Ctrl-C key when someone listens (else it closes quietly).
      rl.on('SIGINT', () => {
        a.io.rawStderr.write('^C\n');
        end(() => reject(pressedCtrlC(a)));
      });
      rl.on('close', () => end(() => resolve(undefined)));
      a.interruptSignal?.addEventListener('abort', onAbort, { once: true });
      rl.question(question, (answer) => end(() => resolve(answer.trim())));
    });
  });
}

/** A yes/no question, "[y/N]" added: only y or yes is yes. */
export async function askYesNo(a: Asker, question: string): Promise<boolean> {
  const answer = await askLine(a, `${question} [y/N] `);
  return /^y(es)?$/i.test(answer ?? '');
}

/**
 * A secret typed at `question`, not echoed (a key, an assertion): read key by key in raw mode.
 * Backspace erases, Enter or Ctrl-D ends it, Ctrl-C ends the run as SIGINT does.
 */
export function askSecret(a: Asker, question: string): Promise<string> {
  const stdin = a.io.stdin;
  if (!stdin.isTTY || !stdin.setRawMode) return Promise.reject(new UsageError('cannot prompt: standard input is not a terminal'));
  return oneAtATime(a, async () => {
    a.io.stderr.write(question);
    stdin.setRawMode!(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let finish = () => {};
    try {
      return await new Promise<string>((resolve, reject) => {
        let value = '';
        const onAbort = () => reject(a.interruptSignal?.reason);
        const onData = (chunk: string) => {
          for (const ch of chunk) {
            if (ch === '\r' || ch === '\n' || ch === '\u0004') return resolve(value.trim());
            if (ch === '\u0003') return reject(pressedCtrlC(a));
            if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
            else value += ch;
          }
        };
        const onEnd = () => resolve(value.trim());
        finish = () => {
          stdin.off('data', onData);
          stdin.off('end', onEnd);
          a.interruptSignal?.removeEventListener('abort', onAbort);
        };
        stdin.on('data', onData);
        stdin.on('end', onEnd);
        a.interruptSignal?.addEventListener('abort', onAbort, { once: true });
      });
    } finally {
      finish();
      stdin.setRawMode!(false);
      stdin.pause();
      a.io.stderr.write('\n');
    }
  });
}

/** All of stdin when it is a pipe or file (the non-interactive way to hand over a secret). */
export async function readAllStdin(io: Streams): Promise<string> {
  return (await readAll(io.stdin)).toString('utf8');
}
