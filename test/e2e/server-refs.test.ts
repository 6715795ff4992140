import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/sandbox/index.js';
import { fastClock, runGsh } from '../helpers/context.js';
import { type E2E, runEnv, setup } from './helpers.js';

// A server reference that names no server is never a blind request (issue 37; README "Remembered
// servers"): a reference no name matches is checked once as an id (`GET /servers/{ref}`, which
// answers 404 when the server is absent: 02-endpoints-part-a.md "Endpoints", reading rule 2), and
// one that is neither exits 5 before anything else is sent, naming the names it may have meant.

let t: E2E;
const dirs: string[] = [];
const TYPO = 'amber-nope';
const MEANT = 'amber-bastion-110';
let meant: { id: string; name: string };
let other: { id: string; name: string };

beforeAll(async () => {
  t = await setup({ servers: 4, clock: 'fast' });
  const [a, b] = [...t.sandbox.state.servers.values()];
  a!.name = MEANT;
  meant = a!;
  other = b!;
});
afterAll(async () => {
  await t.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A config dir of its own: nothing remembered yet. */
function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gsh-refs-'));
  dirs.push(d);
  return d;
}

const line = (e: RequestLogEntry) => `${e.method} ${e.path}`;

async function sent(args: string[], dir = freshDir(), input?: string) {
  const mark = t.sandbox.log.length;
  const r = await t.gsh(args, { env: { GSH_CONFIG_DIR: dir }, ...(input !== undefined ? { input } : {}) });
  return { r, requests: t.sandbox.log.slice(mark).map(line) };
}

/** The reads that find out what a reference is: the search or listing, and the check as an id. */
const onlyLookups = (requests: string[], ...refs: string[]) =>
  requests.filter((l) => l !== 'GET /servers' && !refs.some((ref) => l === `GET /servers/${ref}`));

describe('a reference that names no server', () => {
  it('power start -s amber-nope: exit 5 naming the reference and the name meant; the POST is never sent', async () => {
    const { r, requests } = await sent(['power', 'start', '-s', TYPO]);
    expect(r.exitCode).toBe(5);
    // gsh's finding in its own words: the lookup's 404 and request_id are not the service refusing
    // the command, so they are not on the error line (issue 46; --debug shows them).
    expect(r.stderr).toMatch(/^error: no server has the name or id "amber-nope"$/m);
    expect(r.stderr).not.toMatch(/HTTP 404|request_id/);
    expect(r.stderr).toMatch(/^Did you mean amber-bastion-110\?$/m);
    // The search, the check as an id, and the listing the suggestion comes from.
    expect(requests).toEqual(['GET /servers', `GET /servers/${TYPO}`, 'GET /servers']);
  });

  // Issue 46: the same typo as the positional argument (`power start amber-nope`), every
  // assertion of the list at once: no mutation, at most 3 requests, no HTTP 404 and no request_id
  // on the error line, the real name suggested (also in --json's hint; its object keeps the
  // lookup's status and request_id as fields, as every --json error does).
  it('power start amber-nope (positional): exit 5, no mutation, at most 3 requests, no HTTP 404 or request_id, suggests the real name', async () => {
    for (const extra of [[], ['--json']]) {
      const { r, requests } = await sent(['power', 'start', TYPO, ...extra]);
      expect(r.exitCode, r.stderr).toBe(5);
      expect(requests.filter((l) => !l.startsWith('GET '))).toEqual([]);
      expect(requests.length, requests.join('\n')).toBeLessThanOrEqual(3);
      expect(r.stdout).toBe('');
      if (extra.length) {
        const error = (JSON.parse(r.stderr) as { error: { status: unknown; request_id: unknown; hint?: string; message: string } }).error;
        expect(error.message).toBe(`no server has the name or id "${TYPO}"`);
        expect(error.hint).toMatch(/^Did you mean amber-bastion-110\?$/m);
      } else {
        expect(r.stderr).toMatch(/^error: no server has the name or id "amber-nope"$/m);
        expect(r.stderr).not.toMatch(/HTTP 404|request_id|req_\w+/);
        expect(r.stderr).toMatch(/^Did you mean amber-bastion-110\?$/m);
      }
    }
  });

  it('an id-shaped reference no server has: its check, the search, one page of names; no POST, no 404 on the line', async () => {
    const typo = meant.id.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    const { r, requests } = await sent(['power', 'start', typo]);
    expect(r.exitCode, r.stderr).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`^error: no server has the name or id "${typo}"$`, 'm'));
    expect(r.stderr).not.toMatch(/HTTP 404|request_id/);
    expect(requests).toEqual([`GET /servers/${typo}`, 'GET /servers', 'GET /servers']);
    // --debug keeps the lookup's request id.
    const debug = await sent(['power', 'start', typo, '--debug']);
    expect(debug.r.stderr).toMatch(/x-request-id: req_\w+/);
  });

  it('a partial name (the start of one) is not sent either, and suggests the name it begins', async () => {
    const { r, requests } = await sent(['power', 'start', '-s', 'amber-bastion']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/Did you mean amber-bastion-110\?/);
    expect(onlyLookups(requests, 'amber-bastion')).toEqual([]);
  });

  it.each([
    ['servers get', [MEANT.slice(0, -1)]],
    ['servers delete', ['-s', TYPO, '--yes']],
    ['settings update', ['-s', TYPO, '--description', 'typo']],
    ['files list', ['-s', TYPO]],
    ['files get (hand-written)', ['/eula.txt', '-s', TYPO]],
    ['console send (hand-written)', ['-s', TYPO, 'say hi']],
    ['console attach (hand-written)', ['-s', TYPO, '--read-only', '--no-history']],
    ['wait (hand-written)', ['-s', TYPO, '--for', 'running']],
    ['init status (hand-written)', ['-s', TYPO]],
  ])('%s: exit 5, the suggestion, nothing but the lookups sent', async (what, rest) => {
    const words = what.replace(/ \(.*\)$/, '').split(' ');
    const { r, requests } = await sent([...words, ...rest]);
    expect(r.exitCode, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/did you mean amber-bastion-110\?/i);
    expect(onlyLookups(requests, TYPO, MEANT.slice(0, -1))).toEqual([]);
  });

  it('in a list (-s A,B and console send to several): exit 5 before any target is sent', async () => {
    for (const argv of [['power', 'restart', '-s', `${other.name},${TYPO}`, '--yes'], ['console', 'send', '-s', `${other.name},${TYPO}`, 'say hi']]) {
      const { r, requests } = await sent(argv);
      expect(r.exitCode, argv.join(' ')).toBe(5);
      expect(r.stderr).toMatch(/no server has the name or id "amber-nope"/);
      expect(r.stderr).toMatch(/Did you mean amber-bastion-110\?/);
      // One listing (the targets and the suggestions), the check as an id; no POST.
      expect(requests).toEqual(['GET /servers', `GET /servers/${TYPO}`]);
    }
    const two = await sent(['power', 'stop', '-s', `${TYPO},zzz-unknown`, '--yes']);
    expect(two.r.exitCode).toBe(5);
    expect(two.r.stderr).toMatch(/no server has the name or id "amber-nope" or "zzz-unknown"/);
    expect(two.r.stderr).toMatch(/^"amber-nope": did you mean amber-bastion-110\?$/m);
  });

  it('-s - from standard input gets the same rule', async () => {
    const { r, requests } = await sent(['power', 'stop', '-s', '-', '--yes'], freshDir(), `${other.id}\n${TYPO}\n`);
    expect(r.exitCode).toBe(5);
    expect(onlyLookups(requests, TYPO)).toEqual([]);
  });
});

describe('an id is checked once, then remembered (README "Remembered servers")', () => {
  it('a mutation by id: the check as an id, the request; the next command sends only its own request', async () => {
    const dir = freshDir();
    const first = await sent(['settings', 'update', '-s', other.id, '--description', 'checked'], dir);
    expect(first.r.exitCode, first.r.stderr).toBe(0);
    // Shaped like an id (8 hex digits): checked with GET /servers/{ref} first, no search (issue 45).
    expect(first.requests).toEqual([`GET /servers/${other.id}`, `PATCH /servers/${other.id}/settings`]);
    const again = await sent(['settings', 'update', '-s', other.id, '--description', 'remembered'], dir);
    expect(again.requests).toEqual([`PATCH /servers/${other.id}/settings`]);
  });

  it('servers get by id is its own check: the GET is not sent twice', async () => {
    const { r, requests } = await sent(['servers', 'get', other.id, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(requests).toEqual(['GET /servers', `GET /servers/${other.id}`]);
  });

  it('console send uses remembered servers: one request after the first, by name and by id', async () => {
    t.sandbox.state.servers.get(other.id)!.state = 'running';
    for (const ref of [other.name, other.id]) {
      const dir = freshDir();
      const first = await sent(['console', 'send', '-s', ref, 'say one'], dir);
      expect(first.r.exitCode, first.r.stderr).toBe(0);
      expect(first.requests.at(-1)).toBe(`POST /servers/${other.id}/commands`);
      const again = await sent(['console', 'send', '-s', ref, 'say two'], dir);
      expect(again.r.exitCode, again.r.stderr).toBe(0);
      expect(again.requests).toEqual([`POST /servers/${other.id}/commands`]);
    }
  });

  it('-s id:… and a UUID are never looked up nor checked; the dry run says so', async () => {
    const { requests } = await sent(['settings', 'update', '-s', `id:${other.id}`, '--description', 'marked']);
    expect(requests).toEqual([`PATCH /servers/${other.id}/settings`]);
    const uuid = '0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9';
    const dry = await sent(['settings', 'update', '-s', uuid, '--description', 'x', '--dry-run', '-o', 'json']);
    expect(dry.requests).toEqual([]);
    expect(JSON.parse(dry.r.stdout).servers).toEqual([{ ref: uuid, is: 'id', servers: [{ id: uuid }], known: 'uuid' }]);
    const text = await sent(['settings', 'update', '-s', `id:${other.id}`, '--description', 'x', '--dry-run']);
    expect(text.r.stdout).toContain(`server "id:${other.id}": a server id (id:, never looked up)\n`);
  });
});

describe('--dry-run says what each reference is', () => {
  it('text: names, ids and one that matched nothing (exit 5, no request planned)', async () => {
    const ok = await sent(['power', 'restart', '-s', `${other.name},${meant.id}`, '--dry-run']);
    expect(ok.r.exitCode, ok.r.stderr).toBe(0);
    expect(ok.r.stdout).toContain(`server "${other.name}": the name of server ${other.id}\n`);
    expect(ok.r.stdout).toContain(`server "${meant.id}": a server id, of ${MEANT}\n`);
    const typo = await sent(['power', 'restart', '-s', TYPO, '--dry-run']);
    expect(typo.r.exitCode).toBe(5);
    expect(typo.r.stdout).toBe(`server "${TYPO}": matches no server name or id; did you mean ${MEANT}?\nNo requests would be sent.`);
    expect(typo.requests.filter((l) => !l.startsWith('GET '))).toEqual([]);
  });

  it('-o json: the plan carries servers [{ref, is, servers, known?, suggestions?}]', async () => {
    const dir = freshDir();
    await sent(['servers', 'get', other.name, '--json'], dir);
    const r = (await sent(['power', 'restart', '-s', `${other.name},${TYPO}`, '--dry-run', '-o', 'json'], dir)).r;
    expect(r.exitCode).toBe(5);
    expect(JSON.parse(r.stdout)).toEqual({
      servers: [
        { ref: other.name, is: 'name', servers: [{ id: other.id, name: other.name }] },
        { ref: TYPO, is: 'nothing', servers: [], suggestions: [MEANT] },
      ],
      requests: [],
      then: [],
    });
    const single = JSON.parse((await sent(['power', 'restart', '-s', other.name, '--dry-run', '-o', 'json'], dir)).r.stdout);
    expect(single.servers).toEqual([{ ref: other.name, is: 'name', servers: [{ id: other.id }], known: 'remembered' }]);
    expect(single.requests).toHaveLength(1);
  });
});

describe('checked before anything is sent', () => {
  it('--parallel is checked with one server too (exit 2, nothing sent)', async () => {
    for (const argv of [['power', 'start', '-s', other.name, '--parallel', 'abc'], ['power', 'start', '-s', other.name, '--parallel', '100'], ['console', 'send', '-s', other.name, '--parallel', '0', 'say hi']]) {
      const { r, requests } = await sent(argv);
      expect(r.exitCode, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/--parallel takes a whole number from 1 to 32/);
      expect(requests).toEqual([]);
    }
  });
});

describe('a lookup whose answer is not the API\'s sends nothing after it', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
  });

  /** A proxy that answers the server search with its login page, and notes every request. */
  async function proxyPage(): Promise<{ baseUrl: string; seen: string[] }> {
    const seen: string[] = [];
    const srv = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><head><title>Sign in</title></head><body>…</body></html>');
    });
    servers.push(srv);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return { baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api/v2`, seen };
  }

  it('an HTML page for the name lookup: exit 1 naming it, and no mutation', async () => {
    const proxy = await proxyPage();
    for (const argv of [['power', 'start', '-s', 'lobby'], ['console', 'send', '-s', 'lobby', 'say hi'], ['power', 'start', '-s', 'lobby,survival']]) {
      const before = proxy.seen.length;
      const r = await runGsh(argv, { env: runEnv({ GSH_BASE_URL: proxy.baseUrl, GSH_API_KEY: 'gsh_live_x', GSH_CONFIG_DIR: freshDir() }), clock: fastClock(0.001) });
      expect(r.exitCode, argv.join(' ')).toBe(1);
      expect(r.stderr).toMatch(/the answer is not the API's: HTTP 200, text\/html, an HTML page: "Sign in"/);
      expect(proxy.seen.slice(before).every((l) => l.startsWith('GET /api/v2/servers?'))).toBe(true);
    }
  });
});
