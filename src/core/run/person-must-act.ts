import { openBrowser } from './browser.js';
import { documentOf } from '../auth/discovery.js';
import { ApiError, Exit, GshError, InterruptedError, ownError } from '../errors.js';
import type { PersonMustActHandler, RequestSpec } from '../wire/http.js';
import { askLine } from '../person/ask.js';
import { sharePaceMs } from '../rate-share.js';
import { replayCommand } from '../terminal/report.js';
import type { RuntimeView } from './runtime-view.js';
import { fromService, term, visible } from '../terminal/terminal-text.js';
import { pollUntil } from './poll.js';

// When the API answers that a person must act (01-general-contract.md "Agent registration flow":
// Approvals; "Errors"; "States and transitions"), the request core asks this handler whether to
// repeat the identical request (same body, same Idempotency-Key). An approval can be polled (its
// `approval.status_url`), so it is waited for on a terminal and, with --wait, without one too (an
// agent's run): the URL and what to do go to stderr at once (and one JSON event line with -o
// json|jsonl), the status URL is polled within --timeout and the rate-limit budget, and the
// request is repeated once when approved. An ad view has nothing to poll: only a person on a
// terminal can say it is done. The mutation itself is never re-sent on a timer. Otherwise the run
// gets the URL, what to do and exit 7 at once, so in a fleet that target ends and the others go
// on (exit 11).

/** The error as reported, with the next step as its hint. */
export class PersonMustActError extends ApiError {
  constructor(
    from: ApiError,
    override readonly hint: string,
    message = from.message,
    /** What the wait learnt since the answer (a decided approval's code and status). */
    since: Record<string, unknown> = {},
  ) {
    super(from.status, { ...from.body, ...since, message }, from.requestId, from.retryAfter);
  }
}

const DEFAULT_APPROVAL_POLL_S = 2;
/** Approval polls back off by this factor up to APPROVAL_POLL_MAX_MS. */
const APPROVAL_BACKOFF = 1.5;
/**
 * No pause between approval polls is longer than this, whatever the budget or an interval in the
 * answer (the contract shows none for approvals): a person who approved is looking at the
 * terminal, and was kept waiting 17 s when the polls backed off to 30 s (issue 50). The client
 * still paces on X-RateLimit-Remaining, so a small key is not driven into 429s.
 */
export const APPROVAL_POLL_MAX_MS = 5000;
const TERMINAL_APPROVAL = new Set(['approved', 'rejected', 'denied', 'expired', 'cancelled', 'canceled']);
/** 01-general-contract.md "Limits": approval retry window. */
const APPROVAL_WINDOW = '10 minutes';

/** Why this run does not wait for a person, for the hint. */
const NO_PERSON = 'gsh waits for a person only on a terminal; without one, with --no-input or in CI it stops here';
const NO_WAIT = 'gsh waits for an approval on a terminal, or with --wait: add --wait to wait here';
/** Approval polls use at most this part of the key's per-minute limit (as a fleet's idle status polls do). */
const APPROVAL_POLL_SHARE = 0.5;

function keyHint(spec: RequestSpec): string {
  return spec.idempotencyKey ? ` --idempotency-key ${spec.idempotencyKey}` : '';
}

/**
 * The command that repeats this request once it is approved: the same line with its key (one
 * server of several: run that server's line with the key).
 */
function resumeLine(rt: RuntimeView, spec: RequestSpec): string {
  if (!spec.idempotencyKey) return 'run the same command again';
  return rt.singleTarget && rt.argv.length ? replayCommand(rt.argv, spec.idempotencyKey) : `run the same command for this server again${keyHint(spec)}`;
}

export function personMustAct(rt: RuntimeView, sleep = (ms: number) => rt.sleep(ms)): PersonMustActHandler {
  // Per request: when the person was first waited for (the --timeout budget covers all rounds).
  const since = new WeakMap<RequestSpec, number>();
  // Requests repeated after an approval: asked again, they are not waited for a second time.
  const approved = new WeakSet<RequestSpec>();
  return async (err, spec) => {
    if (!since.has(spec)) since.set(spec, rt.now());
    const deadline = since.get(spec)! + rt.waitLimitMs;
    switch (err.code) {
      case 'approval_required':
      case 'approval_pending': {
        if (approved.has(spec)) {
          throw new PersonMustActError(err, `The service asked for an approval again after it was given; gsh repeats an approved request once. Check with the account owner, then: ${resumeLine(rt, spec)}`);
        }
        const again = await awaitApproval(rt, err, spec, sleep);
        approved.add(spec);
        return again;
      }
      case 'ad_required':
        return awaitAdView(rt, err, deadline);
      case 'insufficient_funds':
        throw new PersonMustActError(err, 'The balance cannot cover this purchase: add funds at the checkout or top-up URL above, then run the command again.');
      case 'free_plan_restricted':
        throw new PersonMustActError(err, "Not available on the free plan: upgrade the plan in the dashboard (or choose a paid plan), then try again.");
      case 'integration_not_connected':
        throw new PersonMustActError(err, 'Link the integration in the dashboard first; `gsh integrations get` shows what is connected.');
      default:
        return false;
    }
  };
}

/** Approval status URLs are polled with the same bearer, so they must be on the API's own origin. */
function statusUrlOf(baseUrl: string, raw: string): string {
  const base = new URL(baseUrl);
  const url = /^https?:\/\//.test(raw) ? new URL(raw) : new URL(raw.startsWith(base.pathname) ? raw : `${base.pathname}${raw.startsWith('/') ? '' : '/'}${raw}`, base.origin);
  if (url.origin !== base.origin) {
    throw new GshError(`the approval status URL is on another host (${url.origin}); not sending the credential there`, Exit.personMustAct);
  }
  return url.href;
}

/**
 * What a caller that is not a terminal's run hears while an approval is waited for (`gsh mcp
 * proxy` turns these into progress notifications): where to approve at once, and each status
 * polled.
 */
export interface ApprovalObserver {
  waiting(at: { actionUrl: string | undefined; statusUrl: string; limitS: number }): void;
  polled(status: string | undefined): void;
}

/**
 * An approval (`approval_required` or `approval_pending`) waited for as the REST path waits for it:
 * true once approved (the caller repeats the identical request once), else the error saying how
 * it ended. The MCP bridge (src/mcp/) calls it for a tool answer that needs an approval.
 */
export function waitForApproval(rt: RuntimeView, err: ApiError, spec: RequestSpec, observer?: ApprovalObserver): Promise<boolean> {
  return awaitApproval(rt, err, spec, (ms) => rt.sleep(ms), observer);
}

async function awaitApproval(rt: RuntimeView, err: ApiError, spec: RequestSpec, sleep: (ms: number) => Promise<void>, observer?: ApprovalObserver): Promise<boolean> {
  const approval = documentOf(err.body.approval);
  const rawStatusUrl = typeof approval.status_url === 'string' ? approval.status_url : undefined;
  const who = "the account owner's approval";
  const resume = resumeLine(rt, spec);
  const waits = rt.interactive || spec.waitsForApproval === true;
  if (!rawStatusUrl || !waits) {
    const why = !rawStatusUrl ? 'the answer gives no approval.status_url to poll' : NO_WAIT;
    const stop = new PersonMustActError(
      err,
      `This needs ${who}${err.actionUrl ? ' at the URL above' : ''}. Once approved, repeat the identical request within ${APPROVAL_WINDOW}:` +
        ` ${resume}. (${why}.)`,
    );
    if (spec.idempotencyKey) stop.resume = resume;
    throw stop;
  }
  const client = await rt.client();
  const statusUrl = statusUrlOf(client.baseUrl, rawStatusUrl);
  announceWait(rt, err, spec, statusUrl, resume);
  observer?.waiting({ actionUrl: err.actionUrl, statusUrl, limitS: Math.round(rt.waitLimitMs / 1000) });
  if (err.actionUrl) await openBrowser(rt, err.actionUrl);
  const fetchStatus = async (): Promise<string | undefined> => {
    const once = async () => {
      const bearer = await rt.auth?.credential?.bearer();
      const res = await client.request({ method: 'GET', path: statusUrl, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
      const status = documentOf(res.body).status;
      observer?.polled(typeof status === 'string' ? status : undefined);
      return typeof status === 'string' ? status : undefined;
    };
    try {
      return await once();
    } catch (e) {
      // The token may have expired between polls: the credential renews, then one more try.
      if (e instanceof ApiError && e.status === 401 && (await rt.auth?.credential?.renewAfterUnauthorized?.())) return once();
      throw e;
    }
  };
  // Each poll waits longer than the last (the interval the service asks for, then 1.5 times
  // more), and never less than keeps the polls within half the key's per-minute limit
  // (X-RateLimit-Limit), so the rest of the run keeps its budget; never more than
  // APPROVAL_POLL_MAX_MS. The polls go through the run's client, which paces on
  // X-RateLimit-Remaining and waits out a 429's Retry-After.
  const intervalS = typeof approval.interval === 'number' && approval.interval > 0 ? approval.interval : DEFAULT_APPROVAL_POLL_S;
  let intervalMs = Math.min(APPROVAL_POLL_MAX_MS, Math.max(100, intervalS * 1000));
  const backedOff = (ms: number) => {
    const limit = client.rateLimitState?.limit;
    const floor = limit ? sharePaceMs(1, APPROVAL_POLL_SHARE, limit) : 0;
    const wait = Math.min(ms, APPROVAL_POLL_MAX_MS, Math.max(intervalMs, floor));
    intervalMs = Math.min(APPROVAL_POLL_MAX_MS, Math.max(intervalMs, intervalMs * APPROVAL_BACKOFF));
    return sleep(wait);
  };
  let status: string | undefined;
  try {
    status = await pollUntil(rt, 'the approval', fetchStatus, (s) => s !== undefined && TERMINAL_APPROVAL.has(s), (s) => s ?? 'no status', {
      // The pause is backedOff's; pollUntil only cuts it at the --timeout deadline.
      intervalMs: rt.waitLimitMs,
      sleep: backedOff,
      readable: { test: (s) => s !== undefined, fields: 'status', path: statusUrl },
    });
  } catch (caught) {
    throw stoppedWaiting(ownError(caught), resume);
  }
  if (status === 'approved') {
    rt.note('Approved; sending the identical request again.');
    event(rt, { event: 'approval_approved', idempotency_key: spec.idempotencyKey ?? null });
    return true;
  }
  // The error says how the approval ended (issue 43 item 5): its code is approval_rejected (or
  // _expired…) and its approval object carries the status the status URL gave, not the 403's
  // `pending`. 01-general-contract.md "States and transitions": rejected is terminal, the caller
  // must not retry.
  throw new PersonMustActError(
    err,
    status === 'expired' ? `Run the command again to ask for a new approval.` : 'The request was not sent again, and must not be: talk to the account owner before trying anything else.',
    status === 'expired' ? 'the approval expired before anyone decided' : `the account owner ${status === 'rejected' ? 'rejected' : status} this request`,
    { code: `approval_${status}`, approval: { ...approval, status } },
  );
}

/** What the wait for an approval says at once: the URL and what to do, as text and (json, jsonl) one event line. */
function announceWait(rt: RuntimeView, err: ApiError, spec: RequestSpec, statusUrl: string, resume: string): void {
  const limitS = Math.round(rt.waitLimitMs / 1000);
  // The URL is the service's (issue #44): on a terminal it passes the sanitiser, so its colour
  // codes (a conceal hiding `@evil.example/`) show as text instead of being obeyed. Piped, the
  // stream is not a terminal and the URL stays byte-exact for scripts.
  const shown = (text: string) => (rt.io.stderrTTY ? visible(fromService(text)) : text);
  rt.io.stderr.write(`This request needs the account owner's approval${err.code === 'approval_pending' ? ' (already requested)' : ''}.\n`);
  if (err.actionUrl) rt.io.stderr.write(`  Approve at: ${shown(err.actionUrl)}\n`);
  rt.io.stderr.write(term`  Waiting for the decision for at most ${limitS} s (--timeout); once approved, the identical request is sent again.\n`);
  event(rt, {
    event: 'approval_required',
    code: err.code,
    message: err.message,
    action_url: err.actionUrl ?? null,
    status_url: statusUrl,
    request: { method: spec.method, path: spec.path },
    idempotency_key: spec.idempotencyKey ?? null,
    timeout_s: limitS,
    resume,
  });
}

/** One JSON object a line on stderr, for agents reading -o json or jsonl (README "Agents, and when a person must act"). */
function event(rt: RuntimeView, data: Record<string, unknown>): void {
  if (rt.format === 'json' || rt.format === 'jsonl') rt.io.stderr.write(`${JSON.stringify(data)}\n`);
}

/**
 * The wait ended without a decision (--timeout, Ctrl-C, SIGTERM): the request was not sent again,
 * and the approval may still come, so the error says how to pick it up.
 */
function stoppedWaiting(err: unknown, resume: string): unknown {
  if (!(err instanceof GshError)) return err;
  if (!(err instanceof InterruptedError || err.exitCode === Exit.timedOut)) {
    // A poll that failed (rate limited, unavailable after retries): its own error, and the line for later.
    err.resume ??= resume;
    return err;
  }
  const what = err instanceof InterruptedError ? `${err.message} while waiting for the approval` : err.message;
  const stopped = new GshError(`${what}; the request was not sent again`, err.exitCode, `If it is approved, repeat the identical request within ${APPROVAL_WINDOW} of the approval (asking again before that keeps waiting for the same approval):\n  ${resume}`);
  stopped.resume = resume;
  return stopped;
}

/** On a terminal: the person's Enter, then the identical request once more; elsewhere exit 7. */
async function awaitAdView(rt: RuntimeView, err: ApiError, deadline: number): Promise<boolean> {
  if (!rt.interactive || !err.actionUrl) {
    throw new PersonMustActError(err, `Open the URL above, watch the ad, then run the same command again within 5 minutes. (${NO_PERSON}.)`);
  }
  if (rt.now() >= deadline) {
    throw new GshError('timed out waiting for the ad view', Exit.timedOut, 'Raise --timeout, or watch the ad and run the command again.');
  }
  const lead = `Starting this free server needs an ad view.\n  Watch it at: ${rt.io.stderrTTY ? visible(fromService(err.actionUrl)) : err.actionUrl}\n`;
  await openBrowser(rt, err.actionUrl);
  if ((await askLine(rt, 'Press Enter once the ad has played… ', { lead })) === undefined) {
    throw new PersonMustActError(err, 'Input ended before the ad view was confirmed: watch the ad, then run the same command again within 5 minutes.');
  }
  return true;
}
