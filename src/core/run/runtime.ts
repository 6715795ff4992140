import type { Command } from 'commander';
import type { ApiClient, ClientOptions } from '../wire/http.js';
import type { Resolved } from '../auth/credentials.js';
import type { Context } from './context.js';
import type { Globals } from '../flags/global-flags.js';
import { checkGlobals } from '../flags/global-checks.js';
import { Interrupts, SignalHub } from './interrupts.js';
import { ansi, colorWhen, streamsFor, type Streams } from '../terminal/io.js';
import { type Format, Output, type Shaping } from '../terminal/output.js';
import { RunOutcomes } from '../outcome.js';
import type { Plan, ServerReference } from '../plan.js';
import { RunClients } from './run-clients.js';
import { argvOf, contextOf, rootOf, setExitCode } from './run-state.js';
import type { RuntimeView } from './runtime-view.js';
import type { ConfigStore } from '../auth/store.js';
import { submit } from './submit.js';
import { forTerminal, inLine } from '../terminal/terminal-text.js';

// What every action gets (ARCHITECTURE.md "Lessons from other CLIs": gh's run(opts, ctx)): the
// global options, checked once before anything else happens (global-checks.ts), the context's
// streams, clock and store, Ctrl-C handling (interrupts.ts), lazily built API clients
// (run-clients.ts) and the dry-run fork (submit.ts).

export class Runtime implements RuntimeView {
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
  /** What each server reference turned out to be while planning (the plan shows it). */
  readonly references: ServerReference[] = [];
  /** The displayer: the format shaped by -q, --columns, --no-header and, after prepare(), --jq. */
  out: Output;
  /** Which mutations the run's work sent (submit.ts): what a failure says was applied. */
  readonly outcomes = new RunOutcomes();
  private readonly shaping: Shaping;
  private readonly interrupts: Interrupts;
  private readonly clients: RunClients;
  private readonly hub: SignalHub;

  /**
   * The context, its signals through the run's one hub (interrupts.ts SignalHub): whatever listens
   * for Ctrl-C in this run adds no listener of its own to the process.
   */
  readonly ctx: Context;

  constructor(
    readonly globals: Globals,
    ctx: Context,
    /** -q on a list command. */
    quiet = false,
  ) {
    // Object.create keeps the context's getters lazy (the real process's stdin is built when read).
    this.hub = new SignalHub(ctx.signals);
    ctx = Object.create(ctx, { signals: { value: this.hub, enumerable: true } }) as Context;
    this.ctx = ctx;
    // Every global flag is checked here, before any action can send a request.
    this.io = streamsFor(ctx, { color: colorWhen(globals.color) });
    const options = checkGlobals(globals, ctx.env, quiet);
    this.format = options.format;
    this.shaping = options.shaping;
    this.out = new Output(this.io, this.format, this.shaping);
    this.waitLimitMs = options.waitLimitMs;
    this.retries = options.retries;
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.dryRun = options.dryRun;
    this.interrupts = new Interrupts(ctx);
    this.clients = new RunClients({
      globals,
      ctx,
      retries: this.retries,
      requestTimeoutMs: this.requestTimeoutMs,
      dryRun: this.dryRun,
      interrupts: this.interrupts,
      outcomes: this.outcomes,
      now: () => this.now(),
      note: (line) => this.note(line),
      warn: (line) => this.warn(line),
      // A trace line carries service text (bodies, headers) inside gsh's own dim: shown inert on a terminal, like a note.
      trace: globals.debug ? (line) => this.io.stderr.write(`${ansi.dim(forTerminal(line, this.io.stderrTTY), this.io.colorErr)}\n`) : undefined,
      personMustAct: async () => (await import('./person-must-act.js')).personMustAct(this),
    });
  }

  /** Compiles --jq: a bad expression is a usage error before any request. */
  async prepare(): Promise<void> {
    if (this.globals.jq === undefined) return;
    const jq = await (await import('../terminal/jq.js')).compileJq(this.globals.jq);
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
    this.interrupts.cancelAll(signal);
  }

  /** Ctrl-C pressed at a question (core/person/ask.ts): the run hears SIGINT, as from the process. */
  interrupt(signal: 'SIGINT'): void {
    this.hub.raise(signal);
  }

  /** Aborted by Ctrl-C / SIGTERM while a request, pause or question is under way. */
  get interruptSignal(): AbortSignal {
    return this.interrupts.signal;
  }

  /** A pause of the run's clock that Ctrl-C / SIGTERM ends at once (throwing InterruptedError); `wake` ends it early, its timer cleared. */
  sleep(ms: number, wake?: AbortSignal): Promise<void> {
    return this.interrupts.sleep(ms, wake);
  }

  /** Runs a request or a pause so that Ctrl-C and SIGTERM cancel it (interrupts.ts). */
  interruptible<T>(work: () => Promise<T>): Promise<T> {
    return this.interrupts.interruptible(work);
  }

  /** Prompts are allowed: a terminal on both ends and no --no-input. */
  get interactive(): boolean {
    return this.io.stdinTTY && this.io.stderrTTY && this.globals.input !== false && !this.env.CI;
  }

  /** A client on this run's dispatcher, clock, retries and request timeout. */
  newClient(opts: Pick<ClientOptions, 'baseUrl' | 'credential' | 'onPersonMustAct'>): ApiClient {
    return this.clients.newClient(opts);
  }

  /** The client of the configured profile or environment (a dry run may go without a credential). */
  client(opts: { anonymous?: boolean } = {}): Promise<ApiClient> {
    return this.clients.client(opts);
  }

  /** Where the credential came from (after client()). */
  get auth(): Resolved | undefined {
    return this.clients.auth;
  }

  /** The one fork between planning and executing (submit.ts): --dry-run prints the plan. */
  submit(plan: Plan, execute: () => Promise<number | void>): Promise<number | void> {
    return submit(this, plan, execute);
  }

  /** Notes and warnings name what the service sent (servers, states): shown inert on a terminal. */
  note(message: string): void {
    this.io.stderr.write(`${ansi.dim(forTerminal(message, this.io.stderrTTY), this.io.colorErr)}\n`);
  }

  /** A warning is one line: line breaks in what it quotes are shown (`^J`), on a terminal or not. */
  warn(message: string): void {
    this.io.stderr.write(`${ansi.yellow('warning:', this.io.colorErr)} ${forTerminal(inLine(message), this.io.stderrTTY)}\n`);
  }

  close(): Promise<void> {
    return this.clients.close();
  }
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
  } catch (err) {
    // A dry run stopped by a server reference that matches nothing (exit 5) still shows what each
    // reference is: the plan it prints has no request, since none would be sent.
    if (rt.dryRun && rt.references.some((r) => r.is === 'nothing')) await submit(rt, { requests: [], then: [] }, async () => {});
    throw err;
  } finally {
    await rt.close();
  }
}
