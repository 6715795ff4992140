import { execa } from 'execa';
import { assertNoNodeWarning } from '../helpers/context.js';
import { GSH, type E2E } from './helpers.js';

// A `gsh console attach` (or any long-running gsh) under execa with stdin and stdout as pipes,
// whose output tests can wait on while it runs.

// The process as execa types it for these options: naming execa's generic `ResultPromise` instead
// made the type checker relate the two types, about two seconds of every cold type check.
type Proc = ReturnType<typeof start>;

export interface Running {
  proc: Proc;
  stdoutLines(): string[];
  stderr(): string;
  waitForLine(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  waitForStderr(match: RegExp, timeoutMs?: number): Promise<void>;
  write(text: string): void;
}

function start(e: E2E, args: string[], env: Record<string, string | undefined>) {
  return execa(process.execPath, [GSH, ...args], {
    reject: false, timeout: 60_000, env: e.env(env), extendEnv: true, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe', buffer: false,
  });
}

export function spawnGsh(e: E2E, args: string[], env: Record<string, string | undefined> = {}): Running {
  const proc = start(e, args, env);
  let out = '';
  let err = '';
  const lines: string[] = [];
  let scanned = 0;
  proc.stdout!.setEncoding('utf8');
  proc.stderr!.setEncoding('utf8');
  proc.stdout!.on('data', (chunk: string) => {
    out += chunk;
    const cut = out.lastIndexOf('\n');
    if (cut >= 0) {
      for (const line of out.slice(0, cut).split('\n')) lines.push(line);
      out = out.slice(cut + 1);
    }
  });
  proc.stderr!.on('data', (chunk: string) => (err += chunk));
  // stderr is gsh's own (issue 37 item 3): a line of Node's fails the run once the process ends.
  void proc.then(() => assertNoNodeWarning(args, err));
  const poll = async <T>(check: () => T | undefined, timeoutMs: number, what: string): Promise<T> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = check();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; stderr: ${err.slice(-2000)}; stdout tail: ${lines.slice(-5).join(' | ')}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  return {
    proc,
    stdoutLines: () => lines,
    stderr: () => err,
    waitForLine: (match, timeoutMs = 15_000) =>
      poll(() => {
        for (; scanned < lines.length; scanned++) if (match(lines[scanned]!)) return lines[scanned++];
        return undefined;
      }, timeoutMs, 'a stdout line'),
    waitForStderr: (match, timeoutMs = 15_000) => poll(() => (match.test(err) ? true : undefined), timeoutMs, String(match)).then(() => {}),
    write: (text) => proc.stdin!.write(text),
  };
}

export const floodNumber = (line: string): number | undefined => {
  const m = /flood (\d+)\/\d+ /.exec(line);
  return m ? Number(m[1]) : undefined;
};

/** The flood line numbers seen, checked to be 1..n each once in order. */
export function floodNumbers(lines: readonly string[], total: number): number[] {
  return lines.filter((l) => l.includes(`/${total} `)).map((l) => floodNumber(l)!);
}
