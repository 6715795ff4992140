import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleNodeOf } from '../../src/sandbox/console-node/index.js';
import { ensureRunning, gshInProcess, type GshResult, type E2E, setup } from './helpers.js';
import { testContext } from '../helpers/context.js';
import { run } from '../../src/program.js';
import { until } from '../console/in-process.js';

// Issue #28: whoever controls text the service returns must not control the terminal it is shown
// on. A hostile peer (an HTTP server in this process) puts escape sequences and control characters
// in every field; a terminal (isTTY true) must receive no ESC, C1 or lone \r from them: the only
// escape sequences allowed through are gsh's own colours (SGR from core/terminal/io.ts `ansi`) and, in
// `console attach`, the game's SGR colours. Piped output stays the bytes the service sent.

/** Every kind of sequence the issue names: OSC 52 (both terminators), OSC 0 title, OSC 8 link, DCS, CSI clear, C1 CSI, \r overwrite, BEL, BS, DEL, and SGR gsh never uses (blink, conceal). */
/** …and invisible format characters (issue 37 item 5): a bidi override that turns `gnp.exe` around, an isolate, zero-width space, BOM. */
const H = 'evil\x1b]52;c;cm0gLXJmIH4K\x07\x1b]52;c;AA\x1b\\\x1b]0;title\x07\x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\\x1bP+q\x1b\\\x1b[2J\u009b2J\x1b[5;41m\x1b[8m\rgone\x07\b\x7f\u202Egnp.exe\u2066\u200B\uFEFF.txt';
const SERVER = '0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9';
const FAILING = '1b1c2d3e-4f50-4617-8283-94a5b6c7d8e9';
const MISSING = '2b1c2d3e-4f50-4617-8283-94a5b6c7d8e9';

/** gsh's own palette (core/terminal/io.ts `ansi`): the only SGR a non-console terminal may receive. */
const GSH_SGR = /\x1b\[(?:1|2|22|31|32|33|36|39)m/g;
/** …and on stderr gsh's own line redraw (the fleet's progress line, core/fleet/fleet.ts). */
const GSH_SGR_OR_REDRAW = /\x1b\[(?:1|2|22|31|32|33|36|39)m|\r\x1b\[2K/g;

/**
 * What a terminal must never receive: ESC, C0 other than tab and newline (a \r only before \n), DEL,
 * C1, and the invisible bidi and zero-width characters (shown as `<U+202E>` instead).
 */
function expectInert(text: string, allowSgr: RegExp = GSH_SGR): void {
  const rest = text.replace(allowSgr, '').replace(/\r\n/g, '\n');
  const bad = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/.exec(rest);
  expect(bad, `a control character ${JSON.stringify(bad?.[0])} reached the terminal in ${JSON.stringify(text)}`).toBeNull();
}

/** The payload is shown, not dropped or obeyed: its OSC 52 is on screen as text. */
const SHOWN = '^[]52;c;cm0gLXJmIH4K^G';
/** …and its invisible characters by their code points. */
const SHOWN_INVISIBLE = '<U+202E>gnp.exe<U+2066><U+200B><U+FEFF>.txt';

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The hostile service: every string it returns is H. */
function hostile(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0];
  if (path === '/api/v2/me') return send(res, 200, { data: { account: { id: 7, username: H }, key: { name: H, scopes: ['*'] } } });
  if (path === '/api/v2/servers') {
    return send(res, 200, {
      data: [{ id: SERVER, name: H, application: H, plan: H, region: H, created_at: H }, { id: FAILING, name: `${H}2`, application: H, plan: H, region: H, created_at: H }],
      pagination: { total: 2, offset: 0, limit: 100 },
    });
  }
  if (path === `/api/v2/servers/${SERVER}/files`) {
    return send(res, 200, { data: [{ name: H, path: `/${H}`, type: 'file', size: 1, modified_at: H }], pagination: { total: 1, offset: 0, limit: 100 } });
  }
  if (path === `/api/v2/servers/${SERVER}/power`) return send(res, 202, { data: { power_state: H } });
  if (path === `/api/v2/servers/${FAILING}/power`) return send(res, 409, { error: { code: 'conflict', message: H }, request_id: H });
  return send(res, 404, { error: { code: 'not_found', message: H, errors: [{ field: H, message: H }], action_url: `https://x.example/${H}` }, request_id: H });
}

let peer: Server;
let base: string;
let configDir: string;
beforeAll(async () => {
  peer = createServer(hostile);
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(peer.address() as AddressInfo).port}/api/v2`;
  configDir = mkdtempSync(join(tmpdir(), 'gsh-hostile-'));
});
afterAll(async () => {
  await new Promise((resolve) => peer.close(resolve));
  rmSync(configDir, { recursive: true, force: true });
});

const tty = { stdout: true, stderr: true, columns: 200 };
/** Colour off (NO_COLOR) and on (FORCE_COLOR): the write path lets SGR through only in the second. */
const COLOUR = [['colour off', { NO_COLOR: '1', FORCE_COLOR: undefined }], ['colour on', { NO_COLOR: undefined, FORCE_COLOR: '1' }]] as const;

function gsh(args: string[], env: Record<string, string | undefined>, onTty = true, input?: string): Promise<GshResult> {
  return gshInProcess(args, { GSH_BASE_URL: base, GSH_API_KEY: 'gsh_live_hostile', GSH_CONFIG_DIR: configDir, ...env }, { ...(onTty ? { tty } : {}), ...(input !== undefined ? { input } : {}) });
}

describe.each(COLOUR)('a hostile service on a terminal (%s)', (_name, colour) => {
  const shown = async (args: string[], exit = 0, input?: string) => {
    const r = await gsh(args, colour, true, input);
    expect(r.exitCode, r.stderr).toBe(exit);
    expectInert(r.stdout);
    expectInert(r.stderr, GSH_SGR_OR_REDRAW);
    expect(r.stdout + r.stderr).toContain(SHOWN);
    return r;
  };

  it('files list (table)', async () => {
    await shown(['files', 'list', '-s', SERVER]);
  });
  it('servers list: the table, csv and tsv, and -q', async () => {
    await shown(['servers', 'list']);
    await shown(['servers', 'list', '-o', 'csv']);
    await shown(['servers', 'list', '-o', 'tsv']);
    await shown(['servers', 'list', '--columns', 'name']);
  });
  it('a single object (key/value view), yaml and json', async () => {
    await shown(['me']);
    // JSON and YAML escape control characters themselves (\u001b, \e): nothing to show, nothing obeyed.
    for (const format of ['json', 'yaml']) {
      const r = await gsh(['servers', 'list', '-o', format], colour);
      expect(r.exitCode).toBe(0);
      expectInert(r.stdout);
    }
  });
  it('--jq raw strings', async () => {
    const r = await shown(['servers', 'list', '--jq', '.[].name']);
    // Bidi and zero-width characters by their code points (issue 37 item 5): `…\u202Egnp.exe` would read `…exe.png`.
    expect(r.stdout).toContain(SHOWN_INVISIBLE);
  });
  it('error messages: the message, field errors, action_url and request_id', async () => {
    const r = await shown(['servers', 'get', MISSING], 5);
    expect(r.stderr).toContain('error:');
    expect(r.stderr).toContain(SHOWN_INVISIBLE);
  });
  it('--debug: the trace of an answer whose body holds escape sequences (issue 37 item 5)', async () => {
    const r = await shown(['--debug', 'servers', 'get', MISSING], 5);
    expect(r.stderr).toMatch(/< 404/);
    expect(r.stderr).toContain('^[[5;41m^[[8m');
  });
  it('a fleet: progress, the summary table and the failure note', async () => {
    const r = await shown(['power', 'restart', '-s', SERVER, '-s', FAILING], 11);
    expect(r.stderr).toMatch(/1 of 2 failed/);
  });
  it('auth status and the auth login success line', async () => {
    await shown(['auth', 'status']);
    const dir = mkdtempSync(join(tmpdir(), 'gsh-hostile-login-'));
    try {
      const r = await gsh(['auth', 'login', '--profile', 'h'], { ...colour, GSH_API_KEY: undefined, GSH_CONFIG_DIR: dir }, true, 'gsh_live_hostile\n');
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/Logged in to .* as evil\^\[\]52/);
      expect(r.stderr).toContain(SHOWN_INVISIBLE);
      expectInert(r.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('piped, the data is the bytes the service sent', () => {
  it('tsv and --jq strings keep every byte; json escapes as JSON does', async () => {
    const tsv = await gsh(['servers', 'list', '--columns', 'name'], {}, false);
    // The table's piped form turns tab, newline and \r into spaces (its own rule); everything else is as sent.
    expect(tsv.stdout.split('\n')[0]).toBe(H.replace(/[\t\n\r]/g, ' '));
    const jq = await gsh(['servers', 'list', '--jq', '.[0].name'], {}, false);
    expect(jq.stdoutBytes.toString('utf8')).toBe(`${H}\n`);
    const json = await gsh(['servers', 'list', '--json'], {}, false);
    expect(JSON.parse(json.stdout)[0].name).toBe(H);
  });
});

describe('console attach on a terminal', () => {
  let t: E2E;
  beforeAll(async () => {
    t = await setup({ servers: 2 });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Attaches read-only with a terminal for stdout and stderr, has the game print `line`, and detaches with SIGINT. */
  async function attached(line: string, args: string[], env: Record<string, string | undefined>): Promise<string> {
    const server = [...t.sandbox.state.servers.values()].find((s) => s.state === 'running')!;
    const ctx = testContext({ env: { ...t.env(), ...env }, tty, stdinOpen: true });
    const exit = run(['console', 'attach', '-s', server.id, '--read-only', '--no-history', ...args], ctx);
    await until(() => /attached/.test(ctx.stderr.text()), 10_000, 'the attach');
    consoleNodeOf(t.sandbox).game(server.id)!.write(line);
    await until(() => ctx.stdout.text().includes('after'), 10_000, 'the console line');
    ctx.signals.emit('SIGINT');
    expect(await exit).toBe(130);
    expectInert(ctx.stderr.text());
    return ctx.stdout.text();
  }
  const GAME_COLOUR = '\x1b[33m[Server]\x1b[0m';
  const line = `${GAME_COLOUR} ${H} after`;

  it("keeps the game's colours (SGR) and shows every other sequence", async () => {
    const out = await attached(line, [], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    expect(out).toContain(GAME_COLOUR);
    expect(out).toContain(SHOWN);
    // Any SGR may pass here (the game's colours), nothing else.
    expectInert(out, /\x1b\[[0-9;:]*m/g);
    expect(out).toContain('^[]0;title^G');
    expect(out).toContain('^[P+q^[\\');
    expect(out).toContain('M-^[2J');
    expect(out).toContain('^Mgone');
  });

  it('--color never leaves no escape sequence at all', async () => {
    const out = await attached(line, ['--color', 'never'], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    // Colours and the other CSI and OSC sequences are dropped (as before); what is left is shown.
    expectInert(out, /$^/g);
    expect(out).toContain('[Server] evil');
    expect(out).toContain('^[P+q^[\\');
  });

  it('several servers in one view: a hostile server name is shown, never obeyed, beside gsh\'s colours', async () => {
    const servers = [...t.sandbox.state.servers.values()].filter((s) => !s.stored).slice(0, 2);
    expect(servers).toHaveLength(2);
    for (const s of servers) await ensureRunning(t.sandbox, s);
    const names = servers.map((s) => s.name);
    servers.forEach((s, i) => { s.name = `${H}${i}`; });
    try {
      const ctx = testContext({ env: { ...t.env(), NO_COLOR: undefined, FORCE_COLOR: '1' }, tty, stdinOpen: true });
      const exit = run(['console', 'attach', '-s', servers.map((s) => s.id).join(','), '--read-only', '--no-history'], ctx);
      await until(() => /attached to 2 servers/.test(ctx.stderr.text()), 10_000, 'both attaches');
      for (const s of servers) consoleNodeOf(t.sandbox).game(s.id)!.write(`${GAME_COLOUR} ${H} after`);
      await until(() => (ctx.stdout.text().match(/after/g) ?? []).length >= 2, 10_000, 'both console lines');
      ctx.signals.emit('SIGINT');
      expect(await exit).toBe(130);
      const out = ctx.stdout.text();
      expect(out).toContain(`${SHOWN}`);
      // The label is the name made inert inside gsh's own per-server colour; the game's SGR may pass.
      expectInert(out, /\x1b\[[0-9;:]*m/g);
      // A name's colour codes are shown as text (a console line's SGR is the game's and passes).
      expect(out).toContain('^[[5;41m');
      expectInert(ctx.stderr.text());
    } finally {
      servers.forEach((s, i) => { s.name = names[i]!; });
    }
  });

  it('--raw passes the line through as the server sent it, and resets the terminal on exit', async () => {
    const out = await attached(line, ['--raw'], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    expect(out).toContain(line);
    expect(out.endsWith('\x1b[0m')).toBe(true);
  });

  it('a line that conceals (SGR 8) is reset at its end, so later lines and the shell prompt show (issue 37 item 5)', async () => {
    const out = await attached('\x1b[8msecret \x1b[35mafter', [], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    expect(out).toContain('\x1b[8msecret \x1b[35mafter\x1b[0m\n');
    // …and once more when the attach ends, before the shell prompt.
    expect(out.endsWith('\x1b[0m')).toBe(true);
  });

  it('without colour, no reset is added: the line is stripped and nothing else is written', async () => {
    const out = await attached('\x1b[8msecret after', ['--color', 'never'], { NO_COLOR: undefined, FORCE_COLOR: '1' });
    expect(out).toContain('secret after\n');
    expect(out).not.toContain('\x1b');
  });
});
