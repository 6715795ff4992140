import { Exit, GshError } from '../errors.js';
import type { ApiClient, ApiResponse } from '../wire/http.js';
import { MAX_PAGE, type ListEnvelope } from '../wire/paging.js';
import { sharePaceMs } from '../rate-share.js';
import type { Runtime } from '../run/runtime.js';
import { pollDelay } from '../run/poll.js';
import { describeServerStatus, type ServerStatus, serverStateReached } from './wait.js';

// Fleet waits in pages (README "Waiting on many servers"): the servers a fleet waits on are read
// together, a round at a time, through GET /servers?include=status (02-endpoints-part-a.md
// "Servers": live state for up to 100 servers a request), instead of GET .../status per server
// per second. A round reads pages in the list's order until every waited server has been seen.
// Where the list gives no usable state for a server (the contract does not show the shape of
// `status` in the list, and gives it only where the key's user may open the console), that server
// is read alone through GET /servers/{id}/status, as a single-server wait does.
//
// Rounds are paced so that polls leave the shared rate-limit budget (X-RateLimit-Limit) to the
// actions still to send: at most POLL_SHARE_SENDING of it while the fleet is still sending, at
// most POLL_SHARE_IDLE once everything is sent; and never faster than the single-server backoff
// (1 s after a server joins, then growing to a cap).

/** Parts of the per-minute limit polls may use while actions wait to be sent, and after. */
export const POLL_SHARE_SENDING = 0.1;
export const POLL_SHARE_IDLE = 0.5;

interface Waiter {
  serverId: string;
  reached: (s: ServerStatus) => boolean;
  deadline: number;
  last?: ServerStatus;
  resolve: (s: ServerStatus) => void;
  reject: (err: unknown) => void;
}

export class StatusPoller {
  /** How many actions the fleet has still to send (the budget they need is kept for them). */
  actionsLeft: () => number = () => 0;
  private readonly waiters = new Set<Waiter>();
  /** Servers the list gave no state for: read alone from then on. */
  private readonly unlisted = new Set<string>();
  /** Pages one round of the whole list takes (learnt from `pagination.total`). */
  private pages = 1;
  private limitPerMinute: number | undefined;
  private roundsSinceJoin = 0;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly rt: Runtime, private readonly client: ApiClient) {}

  /** Resolves with the status once the server reaches `target` (see waitForServerState); exit 10 after --timeout. */
  waitFor(serverId: string, target: string, mustLeave?: string): Promise<ServerStatus> {
    return new Promise<ServerStatus>((resolve, reject) => {
      if (this.closed) return reject(new GshError('the wait was stopped', Exit.interrupted));
      this.waiters.add({ serverId, reached: serverStateReached(target, mustLeave, () => this.rt.now()), deadline: this.rt.now() + this.rt.waitLimitMs, resolve, reject });
      this.roundsSinceJoin = 0;
      this.running ??= this.loop().finally(() => (this.running = undefined));
    });
  }

  /** Stops polling (the fleet was interrupted): waits still open end with exit 130. */
  close(): void {
    this.closed = true;
    for (const w of this.waiters) w.reject(new GshError('the wait was stopped', Exit.interrupted));
    this.waiters.clear();
  }

  private async loop(): Promise<void> {
    let spent = 0;
    try {
      while (this.waiters.size && !this.closed) {
        const nearest = Math.min(...[...this.waiters].map((w) => w.deadline));
        const until = this.rt.now() + Math.max(0, Math.min(this.delay(spent), nearest - this.rt.now()));
        // In steps of at most a second: a closed poller (Ctrl-C) leaves no long timer behind.
        while (!this.closed && this.rt.now() < until) await this.rt.sleep(Math.min(1000, until - this.rt.now()));
        if (this.closed) return;
        spent = await this.round();
        this.roundsSinceJoin++;
      }
    } catch (err) {
      // Ctrl-C / SIGTERM ended a pause: every wait ends with it (the loop's own promise has no
      // one listening, so nothing may escape it).
      for (const w of this.waiters) w.reject(err);
      this.waiters.clear();
    }
  }

  /** The pause before the next round: the backoff, or longer when the budget asks for it. */
  private delay(lastRoundRequests: number): number {
    const backoff = pollDelay(this.roundsSinceJoin);
    if (!this.limitPerMinute || !lastRoundRequests) return backoff;
    const share = this.actionsLeft() > 0 ? POLL_SHARE_SENDING : POLL_SHARE_IDLE;
    return Math.max(backoff, sharePaceMs(lastRoundRequests, share, this.limitPerMinute));
  }

  /** Reads the state of every waited server once and settles the waits that ended; gives the requests it sent. */
  private async round(): Promise<number> {
    const waiting = [...this.waiters];
    const wanted = new Set(waiting.map((w) => w.serverId));
    const listable = [...wanted].filter((id) => !this.unlisted.has(id));
    const states = new Map<string, ServerStatus>();
    const failures = new Map<string, unknown>();
    let requests = 0;
    // Reading alone is cheaper while the waited servers are fewer than the list's pages.
    if (listable.length > this.pages) {
      try {
        requests += await this.readList(new Set(listable), states);
        for (const id of listable) if (!states.has(id)) this.unlisted.add(id);
      } catch {
        // The list failed (after the client's retries): this round reads each server alone.
      }
    }
    const alone = [...wanted].filter((id) => !states.has(id));
    await Promise.all(alone.map(async (id) => {
      try {
        requests++;
        const res = await this.client.request<{ data?: ServerStatus }>({ method: 'GET', path: `/servers/${encodeURIComponent(id)}/status` });
        this.noteLimit(res);
        states.set(id, res.body?.data ?? {});
      } catch (err) {
        failures.set(id, err);
      }
    }));
    const now = this.rt.now();
    for (const w of waiting) {
      if (!this.waiters.has(w)) continue;
      const failure = failures.get(w.serverId);
      const status = states.get(w.serverId);
      if (status) w.last = status;
      const end = failure !== undefined ? () => w.reject(failure)
        : status && w.reached(status) ? () => w.resolve(status)
          : now >= w.deadline ? () => w.reject(new GshError(`timed out waiting for server ${w.serverId} (last: ${w.last ? describeServerStatus(w.last) : 'no state read'})`, Exit.timedOut, 'Raise --timeout, or check again later.'))
            : undefined;
      if (end) {
        this.waiters.delete(w);
        end();
      }
    }
    return requests;
  }

  /** Pages of the list with statuses, in order, until every wanted server is seen; gives the requests sent. */
  private async readList(wanted: Set<string>, states: Map<string, ServerStatus>): Promise<number> {
    let requests = 0;
    for (let offset = 0; ; offset += MAX_PAGE) {
      requests++;
      const res = await this.client.request<ListEnvelope>({ method: 'GET', path: '/servers', query: { include: 'status', limit: MAX_PAGE, offset } });
      this.noteLimit(res);
      const items = Array.isArray(res.body?.data) ? (res.body.data as unknown[]) : [];
      for (const item of items) {
        const id = (item as { id?: unknown })?.id;
        const status = statusOf(item);
        if ((typeof id === 'string' || typeof id === 'number') && wanted.has(String(id)) && status) states.set(String(id), status);
      }
      const p = res.body?.pagination;
      if (typeof p?.total === 'number' && p.total > 0) this.pages = Math.ceil(p.total / MAX_PAGE);
      if (!p?.has_more || items.length === 0 || [...wanted].every((id) => states.has(id))) return requests;
    }
  }

  private noteLimit(res: ApiResponse<unknown>): void {
    const limit = Number(res.headers['x-ratelimit-limit']);
    if (Number.isFinite(limit) && limit > 0) this.limitPerMinute = limit;
  }
}

/**
 * The status a list item carries, when it carries one gsh can read: an object with a `state`
 * word (as GET /servers/{id}/status gives). Anything else is no state: never one made up.
 */
function statusOf(item: unknown): ServerStatus | undefined {
  const status = item && typeof item === 'object' ? (item as { status?: unknown }).status : undefined;
  if (!status || typeof status !== 'object' || Array.isArray(status)) return undefined;
  return typeof (status as ServerStatus).state === 'string' ? (status as ServerStatus) : undefined;
}

const pollers = new WeakMap<ApiClient, StatusPoller>();

/** The one poller of a client: every wait of a fleet run shares its rounds. */
export function sharedPoller(rt: Runtime, client: ApiClient): StatusPoller {
  let poller = pollers.get(client);
  if (!poller) {
    poller = new StatusPoller(rt, client);
    pollers.set(client, poller);
  }
  return poller;
}

/** Ends the client's shared polling, if any (a fleet run is over or was interrupted). */
export function stopPolling(client: ApiClient): void {
  pollers.get(client)?.close();
  pollers.delete(client);
}
