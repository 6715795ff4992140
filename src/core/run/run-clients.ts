import type { Context } from './context.js';
import { resolveAuth, type Resolved } from '../auth/credentials.js';
import type { Globals } from '../flags/global-flags.js';
import { ApiClient, type ClientOptions, type PersonMustActHandler } from '../wire/http.js';
import type { Interrupts } from './interrupts.js';
import type { RunOutcomes } from '../outcome.js';
import { plainHttpWarning } from '../wire/transport-policy.js';

// The API clients of one run: every client is made here, on the run's dispatcher, clock, retries,
// request timeout and interrupts, so no request can go to a plain-http remote host unannounced.

export interface ClientSettings {
  globals: Globals;
  ctx: Context;
  retries: number;
  requestTimeoutMs: number;
  dryRun: boolean;
  interrupts: Interrupts;
  /** The run's tracker of the mutations its clients send (core/run/submit.ts). */
  outcomes: RunOutcomes;
  now(): number;
  note(line: string): void;
  warn(line: string): void;
  /** --debug's trace lines. */
  trace: ((line: string) => void) | undefined;
  /** What a client does when a person must act (loaded when an answer first needs one). */
  personMustAct(): Promise<PersonMustActHandler>;
}

export class RunClients {
  private clientPromise: Promise<ApiClient> | undefined;
  private resolved: Resolved | undefined;
  /** The plain-http warning is said once per run, however many clients the run makes. */
  private warnedPlainHttp = false;

  constructor(private readonly s: ClientSettings) {}

  /** A client on this run's dispatcher, clock, retries and request timeout. */
  newClient(opts: Pick<ClientOptions, 'baseUrl' | 'credential' | 'onPersonMustAct'>): ApiClient {
    const { s } = this;
    const warning = plainHttpWarning(opts.baseUrl, s.ctx.env);
    if (warning && !this.warnedPlainHttp) {
      this.warnedPlainHttp = true;
      s.warn(warning);
    }
    return new ApiClient({
      ...opts,
      retries: s.retries,
      attemptTimeoutMs: s.requestTimeoutMs,
      env: s.ctx.env,
      sleep: (ms) => s.interrupts.sleep(ms),
      now: () => s.now(),
      notify: (line) => s.note(line),
      signal: s.interrupts.signal,
      interruptible: (work) => s.interrupts.interruptible(work),
      outcomes: s.outcomes,
      ...(s.ctx.dispatcher ? { dispatcher: s.ctx.dispatcher } : {}),
      trace: s.trace,
    });
  }

  /** The client of the configured profile or environment (a dry run may go without a credential). */
  client(opts: { anonymous?: boolean } = {}): Promise<ApiClient> {
    const { s } = this;
    this.clientPromise ??= (async () => {
      this.resolved = await resolveAuth({
        baseUrlFlag: s.globals.baseUrl,
        profileFlag: s.globals.profile,
        env: s.ctx.env,
        store: s.ctx.store,
        newClient: (baseUrl) => this.newClient({ baseUrl }),
        anonymous: opts.anonymous || s.dryRun,
        sendsNone: opts.anonymous,
      });
      // The handler's module loads on the first answer that needs a person, not with every client.
      let handler: Promise<PersonMustActHandler> | undefined;
      const onPersonMustAct: PersonMustActHandler = async (err, spec) => (await (handler ??= s.personMustAct()))(err, spec);
      const client = this.newClient({ baseUrl: this.resolved.baseUrl, credential: this.resolved.credential, onPersonMustAct });
      // One budget with the other gsh processes on this key (core/run/shared-budget.ts); a dry run touches nothing on disk.
      if (this.resolved.credential && !s.dryRun) {
        const { budgetIdentity, sharedBudget } = await import('./shared-budget.js');
        client.sharedBudget = sharedBudget(s.ctx.env, this.resolved.baseUrl, budgetIdentity(this.resolved, s.ctx));
      }
      return client;
    })();
    return this.clientPromise;
  }

  /** Where the credential came from (after client()). */
  get auth(): Resolved | undefined {
    return this.resolved;
  }

  async close(): Promise<void> {
    if (this.clientPromise) await (await this.clientPromise.catch(() => undefined))?.close();
  }
}
