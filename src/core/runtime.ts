import type { Command } from 'commander';
import { ApiClient, checkIdempotencyKey } from './http.js';
import { resolveAuth, type Resolved } from './credentials.js';
import { UsageError } from './errors.js';
import { ansi, processStreams, type Streams } from './io.js';
import { FORMATS, type Format, Output } from './output.js';
import { parseDuration } from './duration.js';

// What every action gets (STYLE.md: gh's run(opts, ctx)): the global options, the streams and a
// lazily built API client. Tests construct one with their own Streams.

export interface Globals {
  profile?: string;
  baseUrl?: string;
  output?: string;
  json?: boolean;
  /** commander's --no-color sets this false. */
  color?: boolean;
  debug?: boolean;
  yes?: boolean;
  /** commander's --no-input sets this false. */
  input?: boolean;
  idempotencyKey?: string;
  retries?: string;
  timeout?: string;
}

export const DEFAULT_WAIT_MS = 10 * 60_000;

export class Runtime {
  readonly format: Format;
  readonly out: Output;
  /**
   * The running command was given `--wait`: where a person must act, poll for them instead of
   * exiting 7 when there is no terminal (set by runtimeFor from the command's own options).
   */
  waitRequested = false;
  private clientPromise: Promise<ApiClient> | undefined;
  private resolved: Resolved | undefined;

  constructor(
    readonly globals: Globals,
    readonly io: Streams,
  ) {
    this.format = resolveFormat(globals);
    this.out = new Output(io, this.format);
    if (globals.idempotencyKey !== undefined) checkIdempotencyKey(globals.idempotencyKey);
  }

  get env(): NodeJS.ProcessEnv {
    return this.io.env;
  }

  /** Prompts are allowed: a terminal on both ends and no --no-input. */
  get interactive(): boolean {
    return this.io.stdinTTY && this.io.stderrTTY && this.globals.input !== false && !this.io.env.CI;
  }

  /** --timeout as ms (the limit on waiting), or the default. */
  get waitLimitMs(): number {
    return this.globals.timeout ? parseDuration(this.globals.timeout, '--timeout') : DEFAULT_WAIT_MS;
  }

  get retries(): number {
    if (this.globals.retries === undefined) return 4;
    const n = Number(this.globals.retries);
    if (!Number.isInteger(n) || n < 0 || n > 20) throw new UsageError('--retries must be a whole number from 0 to 20');
    return n;
  }

  async client(opts: { anonymous?: boolean } = {}): Promise<ApiClient> {
    this.clientPromise ??= (async () => {
      this.resolved = await resolveAuth({
        baseUrlFlag: this.globals.baseUrl,
        profileFlag: this.globals.profile,
        env: this.io.env,
        anonymous: opts.anonymous,
      });
      const { personMustAct } = await import('./person-must-act.js');
      return new ApiClient({
        baseUrl: this.resolved.baseUrl,
        credential: this.resolved.credential,
        retries: this.retries,
        env: this.io.env,
        trace: this.globals.debug ? (line) => this.io.stderr.write(`${ansi.dim(line, this.io.colorErr)}\n`) : undefined,
        onPersonMustAct: personMustAct(this),
      });
    })();
    return this.clientPromise;
  }

  /** Where the credential came from (after client()). */
  get auth(): Resolved | undefined {
    return this.resolved;
  }

  note(message: string): void {
    this.io.stderr.write(`${ansi.dim(message, this.io.colorErr)}\n`);
  }

  warn(message: string): void {
    this.io.stderr.write(`${ansi.yellow('warning:', this.io.colorErr)} ${message}\n`);
  }

  async close(): Promise<void> {
    if (this.clientPromise) await (await this.clientPromise).close();
  }
}

function resolveFormat(g: Globals): Format {
  if (g.json) return 'json';
  const f = g.output ?? 'table';
  if (!(FORMATS as readonly string[]).includes(f)) {
    throw new UsageError(`unknown output format "${f}"`, `Use one of: ${FORMATS.join(', ')}.`);
  }
  return f as Format;
}

/** Global options live on the program, wherever they were written on the command line. */
export function runtimeFor(cmd: Command, io?: Streams): Runtime {
  let root = cmd;
  while (root.parent) root = root.parent;
  const globals = root.opts<Globals>();
  const rt = new Runtime(globals, io ?? processStreams({ noColor: globals.color === false }));
  rt.waitRequested = cmd.opts<{ wait?: unknown }>().wait === true;
  return rt;
}

/** Runs an action with its runtime and always closes the API client afterwards. */
export async function withRuntime(cmd: Command, fn: (rt: Runtime) => Promise<void>): Promise<void> {
  const rt = runtimeFor(cmd);
  try {
    await fn(rt);
  } finally {
    await rt.close();
  }
}
