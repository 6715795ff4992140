import { outputStream } from '../core/terminal/io.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Clock, Context } from '../core/run/context.js';
import { resolveAuth } from '../core/auth/credentials.js';
import { configDir, configDirProblem, writePrivateCache } from '../core/auth/store.js';

// `gsh __complete servers [--profile P] [--base-url U] [--prefix WORD]`: server names for the
// shells' `-s <TAB>` (hidden: run() answers it before commander, so it is in no help, reference or
// man page). It runs on every TAB, so it is built for that: answers are cached for a minute in the
// config dir (mode 0600, keyed by a hash of base URL and credential, never the credential itself)
// and the cache is read before the HTTP client is loaded; otherwise one GET /servers with the
// typed word as its `search` (case-insensitive name substring, 02-endpoints-part-a.md "Servers"),
// so any of more than 100 servers can be completed, no retries, a budget of BUDGET_MS for the
// whole answer. A cached answer that held every match for a shorter word serves a longer one
// without asking. Never a prompt, nothing on stderr: any failure is an empty answer and exit 0.

const BUDGET_MS = 2000;
const CACHE_MS = 60_000;
/** Answers kept per credential (the most recent), so typing a name letter by letter stays one file. */
const CACHE_ENTRIES = 16;
export const CACHE_FILE = 'completion-servers.json';

interface CacheEntry {
  /** The `search` sent ('' for none). */
  search: string;
  at: number;
  names: string[];
  /** Every server matching `search` is in `names` (the answer had no more pages). */
  complete: boolean;
}

interface Cache {
  key: string;
  entries: CacheEntry[];
}

export async function complete(args: readonly string[], ctx: Context): Promise<number> {
  try {
    // --dry-run sends nothing here either; a completion has no plan to show.
    if (args[0] !== 'servers' || args.includes('--dry-run')) return 0;
    const names = await serverNames(globalsIn(args.slice(1)), ctx);
    outputStream(ctx.stdout).write(names.map((n) => `${n}\n`).join(''));
  } catch {
    // Silent by design: a completion that fails offers nothing and says nothing.
  }
  return 0;
}

/** The two globals a completion passes on from the line being typed. */
function globalsIn(args: readonly string[]): { profile?: string; baseUrl?: string; prefix?: string } {
  const out: { profile?: string; baseUrl?: string; prefix?: string } = {};
  for (let i = 0; i < args.length - 1; i++) {
    if (args[i] === '--profile') out.profile = args[++i];
    else if (args[i] === '--base-url') out.baseUrl = args[++i];
    else if (args[i] === '--prefix') out.prefix = args[++i];
  }
  return out;
}

/** A name matches a typed word as the API's `search` does: a case-insensitive substring. */
const matches = (name: string, word: string) => name.toLowerCase().includes(word.toLowerCase());

async function serverNames({ prefix = '', ...globals }: { profile?: string; baseUrl?: string; prefix?: string }, ctx: Context): Promise<string[]> {
  // The cache is checked before the HTTP client is even loaded: a cached TAB costs a file read.
  const auth = await resolveAuth({
    baseUrlFlag: globals.baseUrl, profileFlag: globals.profile, env: ctx.env, store: ctx.store,
    newClient: () => {
      throw new Error('the cache key needs no client');
    },
  });
  const key = createHash('sha256').update([auth.baseUrl, auth.profile, auth.source, ctx.env.GSH_TOKEN ?? ctx.env.GSH_API_KEY ?? ''].join('\0')).digest('hex');
  const file = join(configDir(ctx.env), CACHE_FILE);
  // A config dir others can write to is not read (core/disk/disk.ts); completion stays silent.
  const cached = configDirProblem(ctx.env) ? undefined : readCache(file);
  const now = ctx.clock.now();
  const fresh = cached?.key === key ? cached.entries.filter((e) => e.at <= now && now - e.at < CACHE_MS) : [];
  const hit = fresh.find((e) => e.search === prefix || (e.complete && matches(prefix, e.search)));
  if (hit) return hit.names.filter((n) => matches(n, prefix));

  const started = now;
  // Waits the client would make (a rate-limit window) fail at once when they outlast the budget.
  const clock: Clock = {
    now: () => ctx.clock.now(),
    sleep: (ms) => (ctx.clock.now() - started + ms > BUDGET_MS ? Promise.reject(new Error('over budget')) : ctx.clock.sleep(ms)),
  };
  const silent = new Writable({ write: (_c, _e, done) => done() });
  const { Runtime } = await import('../core/run/runtime.js');
  const rt = new Runtime({ ...globals, retries: '0', requestTimeout: `${BUDGET_MS}ms`, input: false }, { ...ctx, stderr: silent, clock });
  try {
    const client = await rt.client();
    const res = await client.request<{ data?: { name?: unknown }[]; pagination?: { has_more?: unknown } }>({
      method: 'GET', path: '/servers', query: { limit: 100, ...(prefix ? { search: prefix } : {}) },
    });
    // A name a shell could not offer as one word (control characters, newlines) is left out.
    const names = (res.body.data ?? []).map((s) => s.name).filter((n): n is string => typeof n === 'string' && n !== '' && !/[\x00-\x1f\x7f]/.test(n));
    const entry: CacheEntry = { search: prefix, at: now, names, complete: res.body.pagination?.has_more !== true };
    writePrivateCache(ctx.env, file, { key, entries: [entry, ...fresh.filter((e) => e.search !== prefix)].slice(0, CACHE_ENTRIES) });
    return names;
  } finally {
    await rt.close();
  }
}

function readCache(file: string): Cache | undefined {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Cache;
    const valid = (e: CacheEntry) => typeof e?.search === 'string' && typeof e.at === 'number' && typeof e.complete === 'boolean' && Array.isArray(e.names) && e.names.every((n) => typeof n === 'string');
    return typeof c.key === 'string' && Array.isArray(c.entries) && c.entries.every(valid) ? c : undefined;
  } catch {
    return undefined;
  }
}

