import type { Command } from 'commander';
import { ApiClient, checkIdempotencyKey, type ClientOptions } from './http.js';
import { resolveAuth, type Resolved } from './credentials.js';
import type { Context } from './context.js';
import type { Globals } from './global-flags.js';
import { GshError, InterruptedError, ownError, UsageError } from './errors.js';
import { OutcomeTracker, settleOutcome, trackOutcomes } from './outcome.js';
import { ansi, colorWhen, streamsFor, type Streams } from './io.js';
import { COLUMN_FORMATS, FORMATS, type Format, Output, type Shaping } from './output.js';
import { parseDuration } from './duration.js';
import { forTerminal } from './terminal-text.js';
import { plainHttpWarning } from './transport-policy.js';
import type { Plan } from './plan.js';
import type { ConfigStore } from './store.js';
import { argvOf, contextOf, rootOf, setExitCode } from './run-state.js';
import { untilAborted } from './sleep.js';

// What every action gets (ARCHITECTURE.md "Lessons from other CLIs": gh's run(opts, ctx)): the
// global options, checked once before anything else happens, the context's streams, clock and
// store, and a lazily built API client.

export const DEFAULT_WAIT_MS = 10 * 60_000;
export const DEFAULT_REQUEST_TIMEOUT = '30s';

export class Runtime {
  readonly io: Streams;
  /** The output format; `json` when --jq is given (the data jq reads). */
  readonly format: Format;
  /** --timeout: the limit on waiting (--wait, --expect). */
  readonly waitLimitMs: number;
  readonly retries: number;
  /** --request-timeout: the limit on one attempt (connect, headers, a stalled body). */
  readonly requestTimeoutMs: number;
  readonly dryRun: boolean;
  /** One target: spinners and per-run notes may use stderr (a fleet draws its own progress instead). */
  singleTarget = true;
  /** The command line as typed (a replay command repeats it with the key). */
  argv: readonly string[] = [];
  /** Aborted by Ctrl-C / SIGTERM while a request or a pause is under way (see interruptible). */
  private readonly interrupt = new AbortController();
  /** Requests and pauses under way; the signal listeners are on only while there are some. */
  private underWay = 0;
  private stopListening: (() => void) | undefined;
  private clientPromise: Promise<ApiClient> | undefined;
  private resolved: Resolved | undefined;
  /** The displayer: the format shaped by -q, --columns, --no-header and, after prepare(), --jq. */
  out: Output;
  private readonly shaping: Shaping;
  /** The plain-http warning is said once per run, however many clients the run makes. */
  private warnedPlainHttp = false;

  constructor(
    readonly globals: Globals,
    readonly ctx: Context,
    /** -q on a list command. */
    quiet = false,
  ) {
    // Every global flag is checked here, before any action can send a request.
    this.io = streamsFor(ctx, { color: colorWhen(globals.color) });
    this.format = resolveFormat(globals);
    this.shaping = { columns: checkShaping(globals, this.format, quiet), header: globals.header !== false, quiet };
    this.out = new Output(this.io, this.format, this.shaping);
    if (globals.idempotencyKey !== undefined) checkIdempotencyKey(globals.idempotencyKey);
    this.waitLimitMs = globals.timeout ? parseDuration(globals.timeout, '--timeout') : DEFAULT_WAIT_MS;
    this.retries = parseRetries(globals.retries);
    const requestTimeout = globals.requestTimeout ?? ctx.env.GSH_REQUEST_TIMEOUT ?? DEFAULT_REQUEST_TIMEOUT;
    const flag = globals.requestTimeout === undefined ? 'GSH_REQUEST_TIMEOUT' : '--request-timeout';
    this.requestTimeoutMs = parseDuration(requestTimeout, flag);
    if (this.requestTimeoutMs <= 0) throw new UsageError(`${flag} must be more than 0`);
    this.dryRun = globals.dryRun === true;
  }

  /** Compiles --jq: a bad expression is a usage error before any request. */
  async prepare(): Promise<void> {
    if (this.globals.jq === undefined) return;
    const jq = await (await import('./jq.js')).compileJq(this.globals.jq);
    this.out = new Output(this.io, this.format, { ...this.shaping, jq });
  }

  get env(): Context['env'] {
    return this.ctx.env;
  }

  get store(): ConfigStore {
    return this.ctx.store;
  }

  now(): number {
    return this.ctx.clock.now();
  }

  /** Cancels every request and pause under way and any started later (a fleet's Ctrl-C between requests). */
  cancelAll(signal: 'SIGINT' | 'SIGTERM'): void {
    this.interrupt.abort(new InterruptedError(signal, true));
  }

  /** A pause of the run's clock that Ctrl-C / SIGTERM ends at once (throwing InterruptedError). */
  sleep(ms: number): Promise<void> {
    const signal = this.interrupt.signal;
    return this.interruptible(() => untilAborted(this.ctx.clock.sleep(ms, signal), signal));
  }

  /**
   * Runs a request or a pause so that Ctrl-C and SIGTERM cancel it: it fails at once with an
   * InterruptedError (exit 130 / 143) that still says what a mutation did, so the run ends within
   * moments with its output whole. The listeners are on only while something is under way: a
   * command with its own handling (console attach) sees only its own between requests.
   */
  interruptible<T>(work: () => Promise<T>): Promise<T> {
    if (this.underWay++ === 0) {
      const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
        const on = () => this.cancelAll(name);
        this.ctx.signals.on(name, on);
        return [name, on] as const;
      });
      this.stopListening = () => {
        for (const [name, on] of handlers) this.ctx.signals.off(name, on);
      };
    }
    return work().finally(() => {
      if (--this.underWay === 0) this.stopListening?.();
    });
  }

  /** Prompts are allowed: a terminal on both ends and no --no-input. */
  get interactive(): boolean {
    return this.io.stdinTTY && this.io.stderrTTY && this.globals.input !== false && !this.env.CI;
  }

  /** A client on this run's dispatcher, clock, retries and request timeout. */
  newClient(opts: Pick<ClientOptions, 'baseUrl' | 'credential' | 'onPersonMustAct'>): ApiClient {
    // Every client of a run is made here, so no request can go to a plain-http remote host.
    const warning = plainHttpWarning(opts.baseUrl, this.env);
    if (warning && !this.warnedPlainHttp) {
      this.warnedPlainHttp = true;
      this.warn(warning);
    }
    return new ApiClient({
      ...opts,
      retries: this.retries,
      attemptTimeoutMs: this.requestTimeoutMs,
      env: this.env,
      sleep: (ms) => this.sleep(ms),
      now: () => this.now(),
      notify: (line) => this.note(line),
      signal: this.interrupt.signal,
      interruptible: (work) => this.interruptible(work),
      ...(this.ctx.dispatcher ? { dispatcher: this.ctx.dispatcher } : {}),
      trace: this.globals.debug ? (line) => this.io.stderr.write(`${ansi.dim(line, this.io.colorErr)}\n`) : undefined,
    });
  }

  /** The client of the configured profile or environment (a dry run may go without a credential). */
  async client(opts: { anonymous?: boolean } = {}): Promise<ApiClient> {
    this.clientPromise ??= (async () => {
      this.resolved = await resolveAuth({
        baseUrlFlag: this.globals.baseUrl,
        profileFlag: this.globals.profile,
        env: this.env,
        store: this.store,
        newClient: (baseUrl) => this.newClient({ baseUrl }),
        anonymous: opts.anonymous || this.dryRun,
        sendsNone: opts.anonymous,
      });
      const { personMustAct } = await import('./person-must-act.js');
      return this.newClient({ baseUrl: this.resolved.baseUrl, credential: this.resolved.credential, onPersonMustAct: personMustAct(this) });
    })();
    return this.clientPromise;
  }

  /** Where the credential came from (after client()). */
  get auth(): Resolved | undefined {
    return this.resolved;
  }

  /**
   * The one fork between planning and executing: with --dry-run the plan is printed and nothing
   * is sent; otherwise `execute` carries it out.
   */
  async submit(plan: Plan, execute: () => Promise<number | void>): Promise<number | void> {
    if (!this.dryRun) {
      // A failure states what the command's change did (core/outcome.ts): what it sent, or
      // not_applied when it failed before sending the change its plan names.
      const tracker = new OutcomeTracker();
      try {
        return await trackOutcomes(tracker, execute);
      } catch (caught) {
        const err = ownError(caught);
        if (err instanceof GshError) settleOutcome(err, tracker, plan.requests.some((r) => r.method !== 'GET'));
        throw err;
      }
    }
    const { printPlan } = await import('./plan-output.js');
    await printPlan(this, plan);
    return 0;
  }

  /** Notes and warnings name what the service sent (servers, states): shown inert on a terminal. */
  note(message: string): void {
    this.io.stderr.write(`${ansi.dim(forTerminal(message, this.io.stderrTTY), this.io.colorErr)}\n`);
  }

  warn(message: string): void {
    this.io.stderr.write(`${ansi.yellow('warning:', this.io.colorErr)} ${forTerminal(message, this.io.stderrTTY)}\n`);
  }

  async close(): Promise<void> {
    if (this.clientPromise) await (await this.clientPromise.catch(() => undefined))?.close();
  }
}

function parseRetries(raw: string | undefined): number {
  if (raw === undefined) return 4;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(n) || n > 20) throw new UsageError(`--retries must be a whole number from 0 to 20 (got "${raw}")`);
  return n;
}

function resolveFormat(g: Globals): Format {
  if (g.json || g.jq !== undefined) return 'json';
  const f = g.output ?? 'table';
  if (!(FORMATS as readonly string[]).includes(f)) {
    throw new UsageError(`unknown output format "${f}"`, `Use one of: ${FORMATS.join(', ')}.`);
  }
  return f as Format;
}

/**
 * --jq, -q, --columns and --no-header against each other and the format: each combination that
 * would silently ignore one of them is a usage error. Returns the column paths.
 */
function checkShaping(g: Globals, format: Format, quiet: boolean): string[] | undefined {
  const explicitFormat = g.output !== undefined || g.json === true;
  if (g.jq !== undefined && (quiet || g.columns !== undefined || g.header === false || (g.output !== undefined && g.output !== 'json'))) {
    throw new UsageError('--jq prints what the expression yields: it does not combine with -q, --columns, --no-header or -o other than json', 'Shape the output in the expression instead, e.g. --jq \'.[] | [.id, .name] | @csv\'.');
  }
  if (quiet && (explicitFormat || g.columns !== undefined || g.header === false)) {
    throw new UsageError('-q prints identifiers only: it does not combine with -o, --columns or --no-header');
  }
  const columnFormat = (COLUMN_FORMATS as readonly string[]).includes(format);
  if (!columnFormat && g.columns !== undefined) throw new UsageError(`--columns applies to -o table, csv or tsv (not ${format})`);
  if (!columnFormat && g.header === false) throw new UsageError(`--no-header applies to -o table, csv or tsv (not ${format})`);
  if (g.columns === undefined) return undefined;
  const paths = g.columns.split(',').map((c) => c.trim());
  const bad = paths.find((c) => !/^(\.|[\w-]+(\.[\w-]+)*)$/.test(c));
  if (bad !== undefined) throw new UsageError(`--columns: "${bad}" is not a field path`, 'Give comma-separated dot paths, e.g. --columns id,name,status.state.');
  return paths;
}

/** Global options live on the program, wherever they were written on the command line. */
export function runtimeFor(cmd: Command): Runtime {
  const rt = new Runtime(rootOf(cmd).opts<Globals>(), contextOf(cmd), cmd.opts<{ quiet?: boolean }>().quiet === true);
  rt.argv = argvOf(cmd);
  return rt;
}

/**
 * Runs an action with its runtime, records the exit code it returns (none: 0) and always closes
 * the API client afterwards.
 */
export async function withRuntime(cmd: Command, fn: (rt: Runtime) => Promise<number | void>): Promise<void> {
  const rt = runtimeFor(cmd);
  try {
    await rt.prepare();
    setExitCode(cmd, (await fn(rt)) ?? 0);
  } finally {
    await rt.close();
  }
}
