import { openBrowser } from './browser.js';
import { documentOf } from './discovery.js';
import { ApiError, Exit, GshError } from './errors.js';
import type { PersonMustActHandler, RequestSpec } from './http.js';
import { promptLine } from './prompt.js';
import type { RuntimeView } from './runtime-view.js';
import { pollUntil } from './wait.js';

// When the API answers that a person must act (01-general-contract.md "Agent registration flow":
// Approvals; "Errors"; "States and transitions"), the request core asks this handler whether to
// repeat the identical request (same body, same Idempotency-Key). A person is waited for only on
// a terminal (Runtime.interactive: no --no-input, no CI): the approval through its status URL,
// polled with a growing interval, and the ad view by the person's Enter. The mutation itself is
// never re-sent on a timer. A script has no person: it gets the URL, what to do and exit 7 at
// once, --wait or not, so in a fleet that target ends and the others go on (exit 11).

/** The error as reported, with the next step as its hint. */
export class PersonMustActError extends ApiError {
  constructor(
    from: ApiError,
    override readonly hint: string,
    message = from.message,
  ) {
    super(from.status, { ...from.body, message }, from.requestId, from.retryAfter);
  }
}

const DEFAULT_APPROVAL_POLL_S = 2;
/** Approval polls back off by this factor up to APPROVAL_POLL_MAX_MS: a person takes minutes, not seconds. */
const APPROVAL_BACKOFF = 1.5;
export const APPROVAL_POLL_MAX_MS = 30_000;
const TERMINAL_APPROVAL = new Set(['approved', 'rejected', 'denied', 'expired', 'cancelled', 'canceled']);

/** Why this run does not wait for a person, for the hint. */
const NO_PERSON = 'gsh waits for a person only on a terminal; without one, with --no-input or in CI it stops here';

function keyHint(spec: RequestSpec): string {
  return spec.idempotencyKey ? ` --idempotency-key ${spec.idempotencyKey}` : '';
}

export function personMustAct(rt: RuntimeView, sleep = (ms: number) => rt.sleep(ms)): PersonMustActHandler {
  // Per request: when the person was first waited for (the --timeout budget covers all rounds).
  const since = new WeakMap<RequestSpec, number>();
  return async (err, spec) => {
    if (!since.has(spec)) since.set(spec, rt.now());
    const deadline = since.get(spec)! + rt.waitLimitMs;
    switch (err.code) {
      case 'approval_required':
      case 'approval_pending':
        return awaitApproval(rt, err, spec, sleep);
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

async function awaitApproval(rt: RuntimeView, err: ApiError, spec: RequestSpec, sleep: (ms: number) => Promise<void>): Promise<boolean> {
  const approval = documentOf(err.body.approval);
  const rawStatusUrl = typeof approval.status_url === 'string' ? approval.status_url : undefined;
  const who = "the account owner's approval";
  if (!rawStatusUrl || !rt.interactive) {
    throw new PersonMustActError(
      err,
      `This needs ${who}${err.actionUrl ? ' at the URL above' : ''}. Once approved, repeat the identical request within 10 minutes:` +
        ` run the same command again${keyHint(spec)}. (${NO_PERSON}.)`,
    );
  }
  const client = await rt.client();
  const statusUrl = statusUrlOf(client.baseUrl, rawStatusUrl);
  rt.io.stderr.write(`This request needs ${who}${err.code === 'approval_pending' ? ' (already requested)' : ''}.\n`);
  if (err.actionUrl) {
    rt.io.stderr.write(`  Approve at: ${err.actionUrl}\n`);
    await openBrowser(rt, err.actionUrl);
  }
  const intervalS = typeof approval.interval === 'number' && approval.interval > 0 ? approval.interval : DEFAULT_APPROVAL_POLL_S;
  const fetchStatus = async (): Promise<string | undefined> => {
    const once = async () => {
      const bearer = await rt.auth?.credential?.bearer();
      const res = await client.request({ method: 'GET', path: statusUrl, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
      const status = documentOf(res.body).status;
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
  // more, up to 30 s); the polls go through the run's client, so they share its rate-limit budget.
  let intervalMs = Math.max(100, intervalS * 1000);
  const backedOff = (ms: number) => {
    const wait = Math.min(ms, intervalMs);
    intervalMs = Math.min(APPROVAL_POLL_MAX_MS, Math.max(intervalMs, intervalMs * APPROVAL_BACKOFF));
    return sleep(wait);
  };
  const status = await pollUntil(rt, 'the approval', fetchStatus, (s) => s !== undefined && TERMINAL_APPROVAL.has(s), (s) => s ?? 'no status', {
    intervalMs: APPROVAL_POLL_MAX_MS,
    sleep: backedOff,
    readable: { test: (s) => s !== undefined, fields: 'status', path: statusUrl },
  });
  if (status === 'approved') {
    rt.note('Approved; sending the request again.');
    return true;
  }
  throw new PersonMustActError(
    err,
    status === 'expired' ? 'Run the command again to ask for a new approval.' : 'The request was not sent again. Talk to the account owner before trying again.',
    status === 'expired' ? 'the approval expired before anyone decided' : `the account owner ${status === 'rejected' ? 'rejected' : status} this request`,
  );
}

/** On a terminal: the person's Enter, then the identical request once more; elsewhere exit 7. */
async function awaitAdView(rt: RuntimeView, err: ApiError, deadline: number): Promise<boolean> {
  if (!rt.interactive || !err.actionUrl) {
    throw new PersonMustActError(err, `Open the URL above, watch the ad, then run the same command again within 5 minutes. (${NO_PERSON}.)`);
  }
  if (rt.now() >= deadline) {
    throw new GshError('timed out waiting for the ad view', Exit.timedOut, 'Raise --timeout, or watch the ad and run the command again.');
  }
  rt.io.stderr.write(`Starting this free server needs an ad view.\n  Watch it at: ${err.actionUrl}\n`);
  await openBrowser(rt, err.actionUrl);
  await promptLine(rt.io, 'Press Enter once the ad has played… ');
  return true;
}
