import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/sandbox/index.js';
import { type E2E, setup } from './helpers.js';
import { pick } from '../../src/core/terminal/output.js';
import type { Operation } from '../../src/operations/types.js';
import { type Step, makeFixtures, planOf, reference, registryOps } from './walk-plan.js';

// Issue 3 item 7: every leaf command of `gsh reference --json` that reaches an API operation runs
// against one sandbox, and the sandbox's request log shows it reached exactly the operation's
// method and concrete path, with the query and body its flags imply (02-endpoints-part-a.md and
// 03-endpoints-part-b.md, "Endpoints"). Each process uses its own API key, so log entries are
// attributed by key even when several run at once; anonymous commands run alone, in order. Each
// runs in-process (run(argv, ctx)) on a fast clock.

const CONCURRENCY = 6;

let t: E2E;
let dir: string;
let steps: Step[];
let skipped: string[];
const failures: string[] = [];
const tableFailures: string[] = [];
let tableRuns = 0;
const seen = new Map<string, RequestLogEntry[]>();
/** What each command printed with --json (exit 0): the answer's data. */
const printed = new Map<string, unknown>();
let opsByCommand: Map<string, Operation>;

function keyIdOf(secret: string): string {
  return t.sandbox.extensions.context.keys.all().find((k) => k.secret === secret)!.id;
}

/**
 * The server lookup `-s` does first (ARCHITECTURE.md "Command grammar"): the id's check
 * (`GET /servers/{id}`, unless that is the command's own request), first for a reference shaped
 * like an id or right after the name search otherwise, and the search: not the command's own
 * requests.
 */
const isSearch = (e: RequestLogEntry | undefined) => e !== undefined && e.method === 'GET' && e.path === '/servers' && e.query.search !== undefined;
function withoutResolution(entries: RequestLogEntry[], step: Pick<Step, 'method' | 'path'>): RequestLogEntry[] {
  const isCheck = (e: RequestLogEntry, i: number) => e.method === 'GET' && /^\/servers\/[^/]+$/.test(e.path) && (i === 0 || isSearch(entries[i - 1])) && !(step.method === 'GET' && step.path === e.path);
  return entries.filter((e, i) => !isSearch(e) && !isCheck(e, i));
}

async function run(step: Step): Promise<void> {
  const before = t.sandbox.log.length;
  const secret = step.anonymous ? t.sandbox.keys.all : t.sandbox.createKey(['*']);
  const id = step.anonymous ? undefined : keyIdOf(secret);
  // stdin carries the key: `auth login` reads it there; other commands leave it unread.
  const r = await t.gsh(step.argv, { env: { GSH_API_KEY: secret }, input: `${secret}\n`, timeout: step.streaming ? 4000 : 20_000 });
  const entries = withoutResolution(t.sandbox.log.filter((e, i) => (step.anonymous ? i >= before : e.keyId === id)), step);
  seen.set(step.command, entries);
  if (r.exitCode === 0 && !step.streaming && step.argv.includes('--json')) {
    try {
      printed.set(step.command, JSON.parse(r.stdout));
    } catch {
      // Documents and text (openapi, llms) print as they are.
    }
  }
  const hit = entries.find((e) => e.method === step.method && e.path === step.path);
  const where = `gsh ${step.argv.join(' ')}`;
  if (r.timedOut && !step.streaming) return void failures.push(`${where}: timed out`);
  if (!hit) return void failures.push(`${where}: never reached ${step.method} ${step.path}; saw ${entries.map((e) => `${e.method} ${e.path}`).join(', ') || 'nothing'} (exit ${r.exitCode}: ${String(r.stderr).slice(0, 200)})`);
  if (hit.status === null || hit.status >= 500) failures.push(`${where}: ${step.method} ${step.path} answered ${hit.status}`);
  // The arguments name resources that exist; `init status` (and `wait init`) is 404 by contract (never ran init).
  if (hit.status === 404 && step.command !== 'init status' && step.command !== 'wait init') failures.push(`${where}: 404 ${hit.errorCode ?? ''}`);
  if (step.query) {
    for (const [k, v] of Object.entries(step.query)) if (hit.query[k] !== v) failures.push(`${where}: query ${k}=${String(hit.query[k])}, expected ${v}`);
  }
  if (step.body && JSON.stringify(hit.body ?? {}) !== JSON.stringify(step.body)) {
    failures.push(`${where}: body ${JSON.stringify(hit.body)}, expected ${JSON.stringify(step.body)}`);
  }
  if (step.method === 'GET' && !step.streaming) await readAsTable(step, secret, r.exitCode);
}

/**
 * A read command's default output (ARCHITECTURE.md "Output for scripts": a table, tab-separated
 * rows when piped) shows values, never `[object Object]`: piped, and on a terminal with colour. It
 * exits as the JSON run did.
 */
async function readAsTable(step: Step, secret: string, jsonExit: number): Promise<void> {
  const argv = step.argv.filter((a) => a !== '--json');
  for (const terminal of [false, true]) {
    const r = await t.gsh(argv, {
      env: { GSH_API_KEY: secret, ...(terminal ? { NO_COLOR: undefined, TERM: 'xterm' } : {}) },
      ...(terminal ? { tty: { stdout: true, stderr: true, columns: 120 } } : {}),
      input: `${secret}\n`,
      timeout: 20_000,
    });
    tableRuns += 1;
    const where = `gsh ${argv.join(' ')}${terminal ? ' (on a terminal)' : ' (piped)'}`;
    const line = `${r.stdout}\n${r.stderr}`.split('\n').find((l) => l.includes('[object Object]'));
    if (line !== undefined) tableFailures.push(`${where}: ${line.trim().slice(0, 200)}`);
    if (r.exitCode !== jsonExit) tableFailures.push(`${where}: exit ${r.exitCode}, with --json ${jsonExit}: ${r.stderr.slice(0, 200)}`);
  }
}

async function pool(items: Step[], n: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await run(items[next++]!);
  }));
}

beforeAll(async () => {
  t = await setup({ servers: 5, clock: 'fast' });
  dir = mkdtempSync(join(tmpdir(), 'gsh-walk-'));
  const ops = await registryOps();
  opsByCommand = new Map(ops.map((op) => [op.command, op]));
  const fx = await makeFixtures(t.sandbox, ops, dir);
  ({ steps, skipped } = planOf(await reference(t.env()), ops, fx));
  for (const s of steps.filter((x) => x.anonymous)) await run(s);
  await pool(steps.filter((x) => !x.anonymous && !x.last), CONCURRENCY);
  // Removals one at a time, deepest path first, so a parent outlives the steps on its children.
  const depth = (x: Step) => x.path.split('/').length;
  await pool(steps.filter((x) => !x.anonymous && x.last).sort((a, b) => depth(b) - depth(a)), 1);
}, 240_000);

afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('gsh reference --json, walked against the sandbox', () => {
  it('walks every command that reaches an API operation (all but offline commands and init)', () => {
    expect(steps.length).toBeGreaterThan(300);
    // fleet report reads journals only; mcp speaks to the service's /mcp, no registry operation.
    for (const c of skipped) expect(c, 'skipped only offline or init commands').toMatch(/^(init|auth|api$|sandbox|reference$|completion$|man$|version$|cache |wait job$|hooks verify$|fleet report$|mcp |config (lint|schema)$)/);
  });

  it('each reaches exactly its method and concrete path, with the query and body its flags imply', () => {
    expect(failures).toEqual([]);
  });

  it('every read command prints its default output without [object Object], piped and on a terminal', () => {
    expect(tableRuns).toBeGreaterThan(100);
    expect(tableFailures).toEqual([]);
  });

  it('lists declare their columns and identifier, and only lists do; no declared column is empty in every row', () => {
    // ARCHITECTURE.md "Output for scripts": each resource declares its default columns in the
    // registry, never guessed from the data; 01-general-contract.md "Envelope rules": a list's
    // `data` is an array.
    const problems: string[] = [];
    const empty = (v: unknown) => v === undefined || v === null || v === '';
    for (const [command, data] of printed) {
      const op = opsByCommand.get(command) ?? [...opsByCommand.values()].find((o) => o.verbs && command.startsWith(`${o.command} `));
      if (!op) continue; // hand-written commands declare theirs in their own code
      if (Array.isArray(data) !== (op.columns !== undefined)) {
        problems.push(`${command}: ${Array.isArray(data) ? 'answers a list but declares no columns' : 'declares columns but answers one object'}`);
        continue;
      }
      if (!Array.isArray(data) || data.length === 0) continue;
      for (const c of op.columns ?? []) if (data.every((row) => empty(pick(row, c)))) problems.push(`${command}: column ${c} is empty in every row`);
      const idField = op.idField ?? 'id';
      if (data.some((row) => empty(pick(row, idField)))) problems.push(`${command}: a row has no ${idField} (what -q prints)`);
    }
    expect(problems).toEqual([]);
    // Lists with rows in this walk, so the checks above had something to look at.
    expect([...printed.values()].filter((d) => Array.isArray(d) && d.length > 0).length).toBeGreaterThan(35);
  });

  it('reaches no operation other than its own (besides the -s name lookup and signed node URLs)', () => {
    const stray: string[] = [];
    for (const s of steps) {
      for (const e of seen.get(s.command) ?? []) {
        const own = e.method === s.method && e.path === s.path;
        if (!own && !e.path.startsWith('/__node/') && !s.extra.includes(`${e.method} ${e.route}`)) stray.push(`${s.command}: ${e.method} ${e.path}`);
      }
    }
    expect(stray).toEqual([]);
  });
});
