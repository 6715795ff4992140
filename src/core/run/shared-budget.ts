import { join } from 'node:path';
import { crypto } from '../builtin.js';
import { configDir, configDirProblem } from '../auth/store.js';
import { makePrivateDir, updateLocked } from '../disk/disk.js';
import type { SharedRateBudget } from '../wire/http.js';
import type { Resolved } from '../auth/credentials.js';
import type { Context } from './context.js';

// One budget between processes (README "Rollouts", ARCHITECTURE.md "Many servers at once"): gsh processes on one
// machine using the same key and base URL take their requests from one account, a small file in
// the config dir (`rate/<hash>.json`, the hash of the base URL and the credential, never the
// credential) updated under a lock (disk.ts updateLocked). It counts the requests every process
// took in the key's current window (01-general-contract.md "Limits": X-RateLimit-Limit per
// minute, X-RateLimit-Reset the window's end in unix seconds), the service's own count when that
// is higher (other clients), so two scripts at once stay within the limit instead of each
// spending what the other already took. Each client still paces on its own answers too (http.ts).

interface Account {
  v: 1;
  /** The key's per-minute limit; 0 until an answer said it. */
  limit: number;
  /** The window's end, unix seconds; 0 while no answer said it. */
  reset: number;
  /** Requests taken in that window, by every process. */
  used: number;
}

function parse(raw: Buffer | undefined): Account | undefined {
  if (!raw) return undefined;
  try {
    const a = JSON.parse(raw.toString('utf8')) as Account;
    if (a.v === 1 && [a.limit, a.reset, a.used].every((n) => typeof n === 'number' && Number.isFinite(n))) return a;
  } catch {
    // Damaged: starts again (the next update replaces it).
  }
  return undefined;
}

/** The account of `file`: what take(), seen() and join() do to it, each under the file's lock. */
export function fileBudget(file: string): SharedRateBudget & { join: (sent: number, ...said: Parameters<SharedRateBudget['seen']>) => void } {
  /**
   * What an answer `said` (the limit, what remains, when its window resets) and the `sent`
   * requests this process made before it opened the account, untaken (join(); 0 for an answer,
   * seen()). A new window (or the first answer) keeps what was taken before any was known; in the
   * same window the requests are added to what the account counted, not merged by the larger of
   * the two (the service's count may not include another process's takes yet, nor the account
   * this process's requests), so none of them is spent twice; one the account already had from
   * another process's answer is counted twice: a request too few, never one too many. An answer of
   * a window already over changes nothing.
   */
  const record = (sent: number, limit: number, remaining: number, reset: number): void => {
    updateLocked(file, (raw) => {
      const a = parse(raw);
      const counted = limit - remaining;
      if (a && reset < a.reset && a.reset - reset <= 61) return undefined;
      const before = a && (a.reset === reset || a.reset === 0) ? a.used : 0;
      return JSON.stringify({ v: 1, limit, reset, used: Math.max(counted, before + sent) } satisfies Account);
    });
  };
  return {
    take(nowMs) {
      let waitMs = 0;
      updateLocked(file, (raw) => {
        let a = parse(raw) ?? { v: 1, limit: 0, reset: 0, used: 0 };
        // A window ending more than a minute from now was counted on another clock: start again.
        if (a.reset * 1000 - nowMs > 61_000) a = { v: 1, limit: 0, reset: 0, used: 0 };
        if (a.reset) {
          // Windows follow each other a minute apart: one that has ended gives way to the next.
          let reset = a.reset;
          while (reset * 1000 <= nowMs) reset += 60;
          if (reset !== a.reset) Object.assign(a, { reset, used: 0 });
        }
        // Until an answer has said the limit, requests go (each client sends its first alone or a few at once).
        if (a.limit && a.used >= a.limit) {
          waitMs = Math.max(50, a.reset * 1000 - nowMs);
          return undefined;
        }
        a.used++;
        return JSON.stringify(a);
      });
      return waitMs;
    },
    // An answer's count: seen() is a join of no requests.
    seen: (limit, remaining, reset) => record(0, limit, remaining, reset),
    join: record,
  };
}

/**
 * The budget this process shares with the others on `baseUrl` and `secret`. The account is opened
 * only once an answer has said the key's limit and another request is to be sent: until then
 * requests go anyway (take() above lets them while the limit is unknown), and a run of one request
 * (`servers list`) neither hashes with node:crypto nor touches the disk (README "Speed"); what the
 * first answers said is handed on when it opens, the service's count including those requests.
 * None where the config dir may not be used (not the user's alone: what is in it may be planted)
 * or cannot be made.
 */
export function sharedBudget(env: NodeJS.ProcessEnv, baseUrl: string, secret: string): SharedRateBudget | undefined {
  if (configDirProblem(env) !== undefined) return undefined;
  let budget: SharedRateBudget | undefined | null;
  let said: Parameters<SharedRateBudget['seen']> | undefined;
  // Requests sent before the account opened: it learns of them when it does (join()).
  let untaken = 0;
  const open = (): SharedRateBudget | undefined => {
    if (budget !== undefined) return budget ?? undefined;
    budget = null;
    const dir = join(configDir(env), 'rate');
    if (makePrivateDir(dir) !== undefined) return undefined;
    const id = crypto().createHash('sha256').update(`${baseUrl}\0${secret}`).digest('hex').slice(0, 32);
    const file = fileBudget(join(dir, `${id}.json`));
    budget = file;
    if (said) file.join(untaken, ...said);
    return budget;
  };
  // An account that cannot be read or written costs only the sharing: the client paces on its own answers.
  return {
    take: (now) => {
      if (!said) {
        untaken++;
        return 0;
      }
      try {
        return open()?.take(now) ?? 0;
      } catch {
        return 0;
      }
    },
    seen: (...args) => {
      if (!budget) {
        said = args;
        return;
      }
      try {
        budget.seen(...args);
      } catch {
        // As above.
      }
    },
  };
}

/**
 * What names the credential for the account (hashed with the base URL, never stored): the key or
 * token from the environment, a profile's API key, or for an agent (whose token renews itself)
 * its profile and account.
 */
export function budgetIdentity(resolved: Resolved, ctx: Pick<Context, 'env' | 'store'>): string {
  const fromEnv = ctx.env.GSH_TOKEN || ctx.env.GSH_API_KEY;
  if (fromEnv && /GSH_(TOKEN|API_KEY)/.test(resolved.source)) return fromEnv;
  try {
    const profile = ctx.store.read().profiles[resolved.profile];
    return profile?.api_key ?? `agent ${resolved.profile} ${profile?.agent?.account?.id ?? ''}`;
  } catch {
    return `profile ${resolved.profile} ${resolved.source}`;
  }
}
