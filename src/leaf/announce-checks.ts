import { ApiError, Exit, GshError } from '../core/errors.js';
import { OutcomeTracker, trackOutcomes } from '../core/outcome.js';
import type { ApiClient, RateLimitState, RequestSpec } from '../core/wire/http.js';
import { fetchAll, MAX_PAGE } from '../core/wire/paging.js';
import { step, type Step } from '../core/plan.js';
import { askYesNo } from '../core/person/ask.js';
import type { Runtime } from '../core/run/runtime.js';

// Checks before announcing (issue 36, item 2): no `say` reaches a player before gsh has checked
// what would make the action fail or the announced times false.
//
// - A free-plan server's start or restart needs an ad view within the 5 minutes before it
//   (01-general-contract.md "States and transitions" and "Errors": ad_required; 02-endpoints-
//   part-a.md "Power"). An ad view cannot be polled, so without a terminal such a server is not
//   announced; on a terminal the person is asked (gsh then shows the ad's link at T-0). The
//   contract shows no plan field on a server: gsh reads `plan` where the record has one (a word,
//   or an object with `free` or a name) and cannot tell otherwise (README "What gsh assumes
//   beyond the contract").
// - `--ready` without a pattern waits for the settings' done_message: a server whose settings name
//   none could not be waited for, so it is not announced (the same check --ready makes).
// - The key's rate limit (01-general-contract.md "Limits": X-RateLimit-Limit, -Remaining, -Reset)
//   must carry the timeline: every `say`, and at T-0 the action with what comes with it, within
//   the requests left in this minute and, for any minute of the timeline, the per-minute limit.
//
// - A suspended server answers every change with 403 server_suspended (01-general-contract.md
//   "Errors"), so its action would fail at T-0 after its players were warned all along. The
//   contract shows no suspension field on a server record; it names one request that shows it
//   without acting: `POST /servers/{id}/console/token` answers "403 also for suspended server"
//   (02-endpoints-part-a.md "Console"). gsh asks each target for a console token: a 403
//   server_suspended is a suspended server; a token whose `permissions` (01-general-contract.md
//   "Console socket": the token permission of `set state` and `send command`) lack the action's
//   (control.restart…) or control.command is a server the key may not act on. A key that may not
//   take tokens (403 forbidden) cannot tell, and the check is left out for it (issue 43 item 7).
//
// Every problem of every server is listed at once, and no `say` is sent.
// Without a terminal a failed check refuses with its exit code (7, the ready check's, 8) and what
// to do; on a terminal gsh asks, except for a check that asking cannot fix (no done_message).

/** What the checks need of an announcement (announce.ts's Announcement, which imports this module). */
export interface Announcement {
  /** Longest first; `ms` is the time left before T-0. */
  points: readonly { left: string; ms: number }[];
  targets: readonly { id: string; label: string }[];
  verb: string;
}

/** What the run does at T-0 besides the action, for the rate-limit count. */
export interface AtZero {
  /** --ready: the console socket's token (POST …/console/token) before each action. */
  ready: boolean;
  /** --ready without a pattern: the settings read again by the wait. */
  readsSettings: boolean;
  /** --wait or --ready: the first status read after the actions. */
  waits: boolean;
}

export interface Checks {
  /** The action needs an ad view on a free-plan server (start, restart). */
  freePlan: boolean;
  /** --ready without a pattern: each server's settings must name a done_message. */
  doneMessage: boolean;
  atZero: AtZero;
  /** The reads the checks send: the server records (unless listed), then (doneMessage) each server's settings, then each server's console token. */
  reads: RequestSpec[];
  /** The read of the servers' records, or none when the listing that found the targets holds them. */
  records?: RequestSpec;
  /** The records of that listing (core/fleet/targets.ts listedServers): one listing a command. */
  listed?: readonly Record<string, unknown>[];
  /** Per target (same order): the console token that shows a suspended server and what the key may do. */
  tokens: RequestSpec[];
  /** Per target, with doneMessage: its settings. */
  settings: RequestSpec[];
}

/** Verbs that need an ad view on a free-plan server (02-endpoints-part-a.md "Power"). */
const AD_VERBS = new Set(['start', 'restart']);

export function planChecks(a: Announcement, local: { ready?: unknown; wait?: unknown }, readyVerb: boolean, listing?: readonly Record<string, unknown>[]): Checks {
  const one = a.targets.length === 1;
  const doneMessage = readyVerb && local.ready === true;
  const listedIds = new Set(listing?.map((r) => String(r.id)));
  const listed = listing && a.targets.every((t) => listedIds.has(t.id)) ? listing : undefined;
  const records: RequestSpec | undefined = listed ? undefined
    : one ? { method: 'GET', path: `/servers/${encodeURIComponent(a.targets[0]!.id)}` } : { method: 'GET', path: '/servers', query: { limit: MAX_PAGE, offset: 0 } };
  const settings = doneMessage ? a.targets.map((t): RequestSpec => ({ method: 'GET', path: `/servers/${encodeURIComponent(t.id)}/settings` })) : [];
  const ready = readyVerb && local.ready !== undefined && local.ready !== false;
  const tokens = a.targets.map((t): RequestSpec => ({ method: 'POST', path: `/servers/${encodeURIComponent(t.id)}/console/token` }));
  return {
    freePlan: AD_VERBS.has(a.verb),
    doneMessage,
    atZero: { ready, readsSettings: doneMessage, waits: ready || local.wait === true },
    reads: [...(records ? [records] : []), ...settings, ...tokens],
    ...(records ? { records } : {}),
    ...(listed ? { listed } : {}),
    tokens,
    settings,
  };
}

/** When each part of the timeline is sent (ms after the start) and how many requests it takes. */
export function timelineLoad(a: Announcement, atZero: AtZero): { at: number; requests: number; what: string }[] {
  const total = a.points[0]!.ms;
  const n = a.targets.length;
  // A fleet's waits read the statuses 100 servers a request (core/fleet/status-poller.ts).
  const reads = atZero.waits ? (n === 1 ? 1 : Math.ceil(n / MAX_PAGE)) : 0;
  const perTarget = 1 + (atZero.ready ? 1 : 0) + (atZero.readsSettings ? 1 : 0);
  return [
    ...a.points.map((p) => ({ at: total - p.ms, requests: n, what: `T-${p.left}` })),
    { at: total, requests: n * perTarget + reads, what: 'T-0' },
  ];
}

/**
 * Why the key's budget cannot keep the timeline, or undefined when it can: the requests due
 * before the current window resets must fit in what is left of it, and any 60 s of the timeline
 * in the per-minute limit.
 */
export function budgetProblem(load: readonly { at: number; requests: number; what: string }[], rl: RateLimitState, nowMs: number): string | undefined {
  const windowLeft = rl.reset * 1000 - nowMs;
  if (windowLeft > 0) {
    const due = load.filter((l) => l.at < windowLeft);
    const needed = requestsOf(due);
    if (needed > rl.remaining) {
      return `the countdown needs ${needed} requests in the next ${Math.ceil(windowLeft / 1000)} s (${due.map((l) => l.what).join(', ')}), and the key has ${rl.remaining} left in this minute (X-RateLimit-Remaining)`;
    }
  }
  for (const from of load) {
    const within = minuteFrom(load, from.at);
    const needed = requestsOf(within);
    if (needed > rl.limit) {
      return `the countdown needs ${needed} requests within one minute (${within.map((l) => l.what).join(', ')}), and the key allows ${rl.limit} a minute (X-RateLimit-Limit)`;
    }
  }
  return undefined;
}

/** The parts of the timeline sent in the minute that starts at `at`. */
function minuteFrom<T extends { at: number }>(load: readonly T[], at: number): T[] {
  return load.filter((l) => l.at >= at && l.at < at + 60_000);
}

function requestsOf(load: readonly { requests: number }[]): number {
  return load.reduce((sum, l) => sum + l.requests, 0);
}

/** The most requests any minute of the timeline needs, for the plan. */
function peakMinute(load: readonly { at: number; requests: number }[]): number {
  return Math.max(...load.map((from) => requestsOf(minuteFrom(load, from.at))));
}

/** The checks as the plan shows them (`--dry-run`): what is read and when a run is refused. */
export function checkSteps(a: Announcement, c: Checks, known: RateLimitState | undefined): Step[] {
  const first = 'before the first say';
  const one = a.targets.length === 1;
  const steps: Step[] = [];
  const records = !c.records ? 'each server\'s record in the listing that found the servers (GET /servers, read once)' : one ? `the server (GET ${c.records.path})` : 'the servers (GET /servers, every page)';
  steps.push(step('check', c.freePlan
    ? `${first}: read ${records}; a server on the free plan needs an ad view for its ${a.verb}, which only a person can give: refused without a terminal (exit 7), asked on one`
    : `${first}: read ${records} (the rate-limit headers come with the answer)`));
  steps.push(step('check', `${first}: ask each server for a console token (POST /servers/{id}/console/token, which shows no one anything): one that answers 403 server_suspended, or whose token may not ${a.verb} (control.${permissionVerb(a.verb)}) or send a command (control.command), is refused with every other problem, terminal or not, and nothing is announced`));
  if (c.doneMessage) steps.push(step('check', `${first}: read each server's settings (GET /servers/{id}/settings); one that names no done_message for --ready to wait for is refused, terminal or not (give --ready REGEX)`));
  const load = timelineLoad(a, c.atZero);
  const now = requestsOf(load.filter((l) => l.at === 0));
  const limit = known ? `; the key now allows ${known.limit} a minute, ${known.remaining} left in this one` : '';
  steps.push(step('check', `${first}: the timeline needs ${now} request${now === 1 ? '' : 's'} at once and at most ${peakMinute(load)} in any one minute; if the key's rate limit (X-RateLimit-*) cannot carry it, refused without a terminal (exit 8), asked on one${limit}`));
  return steps;
}

/** One failed check: its message, exit code and next step; `ask` when a person may decide to go on. */
interface Problem {
  message: string;
  exit: number;
  hint: string;
  ask: boolean;
}

/**
 * Runs the checks. Returns when the announcement may begin (all passed, or a person on a terminal
 * said to go on); otherwise throws before any `say` is sent.
 */
export async function runChecks(rt: Runtime, a: Announcement, c: Checks, client: ApiClient): Promise<void> {
  const problems: Problem[] = [];
  const settings = c.settings;
  const plans = await readPlans(client, a, c);
  problems.push(...(await tokenProblems(rt, a, c, client)));
  if (c.freePlan) {
    const free = a.targets.filter((t) => plans.get(t.id) === 'free');
    if (free.length) {
      problems.push({
        message: `${free.map((t) => t.label).join(', ')} ${free.length === 1 ? 'is' : 'are'} on the free plan: the service ${a.verb}s a free-plan server only within 5 minutes of an ad view, which only a person can give`,
        exit: Exit.personMustAct,
        hint: `Run it on a terminal (at T-0 gsh shows the ad's link and waits for you), or leave ${free.length === 1 ? 'that server' : 'those servers'} out of -s.`,
        ask: true,
      });
    }
  }
  if (c.doneMessage) {
    const { readyPattern } = await import('./ready.js');
    for (const [i, t] of a.targets.entries()) {
      try {
        await readyPattern(client, { doneMessage: settings[i]! }, t.label, '--wait instead of --ready');
      } catch (err) {
        if (!(err instanceof GshError)) throw err;
        problems.push({ message: err.message, exit: err.exitCode, hint: err.hint ?? 'Give the line to wait for: --ready REGEX.', ask: false });
      }
    }
  }
  const rl = client.rateLimitState;
  const budget = rl && budgetProblem(timelineLoad(a, c.atZero), rl, rt.now());
  if (budget) {
    problems.push({
      message: budget,
      exit: Exit.rateLimited,
      hint: 'Announce to fewer servers at once, use fewer or farther-apart --countdown points, or a key with a higher limit.',
      ask: true,
    });
  }
  if (!problems.length) return;
  const lines = problems.map((p) => p.message);
  if (rt.interactive && problems.every((p) => p.ask)) {
    for (const line of lines) rt.warn(line);
    if (await askYesNo(rt, `Announce anyway${problems.some((p) => p.exit === Exit.rateLimited) ? ' (the announced times may slip)' : ''}?`)) return;
    throw new GshError('nothing was announced: not confirmed', problems[0]!.exit, problems.map((p) => p.hint).join('\n'));
  }
  const message = lines.length === 1 ? lines[0]! : lines.map((l) => `\n  ${l}`).join('');
  throw new GshError(`nothing was announced and no ${a.verb} was sent: ${message}`, problems[0]!.exit, [...new Set(problems.map((p) => p.hint))].join('\n'));
}

type PlanKind = 'free' | 'paid' | undefined;

/** Each target's plan as its record shows it (undefined: the record shows none gsh can read). */
async function readPlans(client: ApiClient, a: Announcement, c: Pick<Checks, 'records' | 'listed'>): Promise<Map<string, PlanKind>> {
  const plans = new Map<string, PlanKind>();
  const wanted = new Set(a.targets.map((t) => t.id));
  const records = c.records;
  const items = !records ? c.listed ?? []
    : records.path === '/servers'
      ? (await fetchAll(client, { method: 'GET', path: '/servers' })).items
      : [(await client.request<{ data?: unknown }>(records)).body?.data];
  for (const item of items) {
    const record = item && typeof item === 'object' ? (item as Record<string, unknown>) : {};
    const id = !records || records.path === '/servers' ? String(record.id ?? '') : a.targets[0]!.id;
    if (wanted.has(id)) plans.set(id, planOf(record.plan));
  }
  return plans;
}

/** `free`, `paid` (any other plan), or undefined when the value says nothing gsh can read. */
export function planOf(plan: unknown): PlanKind {
  if (typeof plan === 'string') return plan.trim() === '' ? undefined : plan.trim().toLowerCase() === 'free' ? 'free' : 'paid';
  if (!plan || typeof plan !== 'object') return undefined;
  const p = plan as Record<string, unknown>;
  if (typeof p.free === 'boolean') return p.free ? 'free' : 'paid';
  for (const key of ['name', 'slug', 'tier', 'id']) if (typeof p[key] === 'string') return planOf(p[key]);
  return undefined;
}

/** The token permission of the power signal `verb` (01-general-contract.md "Console socket": `set state`). */
function permissionVerb(verb: string): string {
  return verb === 'kill' ? 'stop' : verb;
}

/**
 * Each target's console token (see the top of this file): the suspended servers and those the
 * key may not act on, as problems that asking cannot fix. The tokens are not the command's change
 * (kept out of its outcome, as the says are).
 */
async function tokenProblems(rt: Runtime, a: Announcement, c: Checks, client: ApiClient): Promise<Problem[]> {
  const suspended: string[] = [];
  const barred: string[] = [];
  const unknown = new Set<string>();
  const need = [`control.${permissionVerb(a.verb)}`, 'control.command'];
  await trackOutcomes(new OutcomeTracker(), async () => {
    for (const [i, t] of a.targets.entries()) {
      try {
        const res = await client.request<{ data?: { permissions?: unknown } }>(c.tokens[i]!);
        const permissions = res.body?.data?.permissions;
        if (Array.isArray(permissions) && permissions.every((p) => typeof p === 'string') && !permissions.includes('*')) {
          const missing = need.filter((p) => !permissions.includes(p));
          if (missing.length) barred.push(`${t.label} (${missing.join(', ')})`);
        }
      } catch (err) {
        if (err instanceof ApiError && err.code === 'server_suspended') suspended.push(t.label);
        // Any other answer (403 forbidden: no servers:console scope or control.console; 409 storage mode) cannot tell.
        else if (err instanceof ApiError) unknown.add(`${err.status}${err.code ? ` ${err.code}` : ''}`);
        else throw err;
      }
    }
  });
  if (unknown.size) rt.note(`Not checked for suspension: the console token was refused (${[...unknown].join(', ')}; it needs servers:console and control.console)`);
  const problems: Problem[] = [];
  if (suspended.length) {
    problems.push({
      message: `${suspended.join(', ')} ${suspended.length === 1 ? 'is' : 'are'} suspended: the service refuses every change to a suspended server (403 server_suspended)`,
      exit: Exit.permission,
      hint: `Leave ${suspended.length === 1 ? 'that server' : 'those servers'} out of -s, or have the suspension lifted first.`,
      ask: false,
    });
  }
  if (barred.length) {
    problems.push({
      message: `the key may not ${a.verb} or announce on ${barred.join(', ')}: its console token lacks the permission`,
      exit: Exit.permission,
      hint: `Leave ${barred.length === 1 ? 'that server' : 'those servers'} out of -s, or use a key whose user holds those permissions on them.`,
      ask: false,
    });
  }
  return problems;
}
