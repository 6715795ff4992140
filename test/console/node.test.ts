import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { consoleNodeOf } from '../../src/sandbox/console-node/index.js';
import { isEvent, RawSocket } from './raw-socket.js';

// The sandbox console node against 01-general-contract.md "Console socket" (and "Limits":
// socket frames), frame by frame with a bare ws client.

let sandbox: Sandbox;
const open: RawSocket[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ timeScale: 0.05 });
});
afterAll(async () => {
  await sandbox.close();
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const running = () => [...sandbox.state.servers.values()].find((s) => s.state === 'running')!;
const offline = () => [...sandbox.state.servers.values()].find((s) => s.state === 'offline' && !s.stored)!;

async function session(serverId: string): Promise<{ socket: string; token: string; permissions: string[] }> {
  const res = await fetch(`${sandbox.baseUrl}/servers/${serverId}/console/token`, {
    method: 'POST', headers: { authorization: `Bearer ${sandbox.keys.all}` },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { socket: string; token: string; permissions: string[] } }).data;
}

async function connect(url: string, token?: string): Promise<RawSocket> {
  const sock = await RawSocket.open(url);
  open.push(sock);
  if (token) {
    sock.send('auth', token);
    await sock.next(isEvent('auth success'));
  }
  return sock;
}

describe('console node', () => {
  it('issues a session (201 socket, token, permissions) and authenticates with auth success and status', async () => {
    const s = running();
    const sess = await session(s.id);
    expect(sess.socket).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//);
    expect(sess.permissions).toContain('control.console');
    const sock = await connect(sess.socket, sess.token);
    expect(await sock.next(isEvent('status'))).toEqual({ event: 'status', args: ['running'] });
  });

  it('answers anything before auth, and a bad token, with jwt error and keeps the socket open', async () => {
    const s = running();
    const sess = await session(s.id);
    const sock = await connect(sess.socket);
    sock.send('send logs');
    expect((await sock.next(isEvent('jwt error'))).args?.[0]).toMatch(/auth/);
    sock.send('auth', 'not-a-token');
    await sock.next((f) => f.event === 'jwt error' && f.args?.[0] === 'malformed token');
    sock.send('auth', sess.token);
    await sock.next(isEvent('auth success'));
    expect(sock.closed).toBeUndefined();
  });

  it('replays at most the 500 most recent lines on send logs, ANSI kept', async () => {
    const s = running();
    const node = consoleNodeOf(sandbox);
    await node.game(s.id)!.flood(700);
    const sess = await session(s.id);
    const sock = await connect(sess.socket, sess.token);
    sock.send('send logs');
    await sock.next((f) => f.event === 'console output' && /flood 700\/700/.test(f.args?.[0] ?? ''));
    const lines = sock.lines();
    expect(lines).toHaveLength(500);
    expect(lines[0]).toMatch(/flood 201\/700/);
    expect(node.game(s.id)!.buffer.tail(1000).some((l) => l.includes('\x1b['))).toBe(true);
  });

  it('pages history backwards with cursor and page length (1 to 1000, default 200)', async () => {
    const s = running();
    const node = consoleNodeOf(sandbox);
    await node.game(s.id)!.flood(450);
    const sess = await session(s.id);
    const sock = await connect(sess.socket, sess.token);
    sock.send('send history');
    const first = JSON.parse((await sock.next(isEvent('history output'))).args![0]!) as { data: string[]; cursor: string; has_more: boolean };
    expect(first.data).toHaveLength(200);
    expect(first.data.at(-1)).toMatch(/flood 450\/450/);
    expect(first.has_more).toBe(true);
    const mark = sock.frames.length;
    sock.send('send history', first.cursor, '50');
    const second = JSON.parse((await sock.next(isEvent('history output'), mark)).args![0]!) as { data: string[] };
    expect(second.data).toHaveLength(50);
    expect(second.data.at(-1)).toMatch(/flood 250\/450/);
    const mark2 = sock.frames.length;
    sock.send('send history', '', '1001');
    expect((await sock.next(isEvent('daemon error'), mark2)).args?.[0]).toMatch(/1 to 1000/);
  });

  it('enforces the permissions embedded in the token per event', async () => {
    const s = running();
    const node = consoleNodeOf(sandbox);
    const sess = node.issue(s.id, ['control.console']);
    const sock = await connect(sess.socket, sess.token);
    sock.send('send command', 'say hi');
    expect((await sock.next(isEvent('daemon error'))).args?.[0]).toBe('permission denied: control.command');
    sock.send('set state', 'stop');
    await sock.next((f) => f.args?.[0] === 'permission denied: control.stop');
    expect(s.state).toBe('running');
  });

  it('answers a command with its echo, and set state drives the power state machine', async () => {
    const s = offline();
    const sess = await session(s.id);
    const sock = await connect(sess.socket, sess.token);
    sock.send('set state', 'start');
    await sock.next((f) => f.event === 'status' && f.args?.[0] === 'running', 0, 10_000);
    expect(sandbox.state.powerActions.some((a) => a.serverId === s.id && a.signal === 'start')).toBe(true);
    sock.send('send command', 'say hello there');
    await sock.next((f) => f.event === 'console output' && f.args?.[0] === '> say hello there');
    await sock.next((f) => f.event === 'console output' && /\[Server\] hello there/.test(f.args?.[0] ?? ''));
    const mark = sock.frames.length;
    sock.send('set state', 'kill');
    await sock.next((f) => f.event === 'status' && f.args?.[0] === 'offline', mark);
  });

  it('pushes stats while offline', async () => {
    const s = offline();
    const sess = await session(s.id);
    const sock = await connect(sess.socket, sess.token);
    const stats = JSON.parse((await sock.next(isEvent('stats'), 0, 5000)).args![0]!) as Record<string, unknown>;
    expect(Object.keys(stats).sort()).toEqual(['cpu_absolute', 'disk_bytes', 'memory_bytes', 'memory_limit_bytes', 'network', 'state', 'uptime']);
    expect(stats.state).toBe('offline');
  });

  it('sends token expiring then token expired, ignores privileged events after, and a fresh auth restores', async () => {
    const s = running();
    const node = consoleNodeOf(sandbox);
    const sess = node.issue(s.id, undefined, 600);
    const sock = await connect(sess.socket, sess.token);
    await sock.next(isEvent('token expiring'));
    await sock.next(isEvent('token expired'));
    const mark = sock.frames.length;
    sock.send('send command', 'say lost');
    expect((await sock.next(isEvent('jwt error'), mark)).args?.[0]).toBe('token expired');
    node.game(s.id)!.write('while expired');
    sock.send('auth', node.issue(s.id).token);
    await sock.next(isEvent('auth success'), mark);
    node.game(s.id)!.write('after renewal');
    await sock.next((f) => f.args?.[0] === 'after renewal', mark);
    expect(sock.lines()).not.toContain('while expired');
    expect(sock.lines()).not.toContain('> say lost');
    expect(sock.closed).toBeUndefined();
  });

  it('closes on an inbound frame over 64 KiB and caps console lines at 4096 bytes', async () => {
    const s = running();
    const node = consoleNodeOf(sandbox);
    const sess = await session(s.id);
    const sock = await connect(sess.socket, sess.token);
    node.game(s.id)!.write(`long ${'é'.repeat(5000)}`);
    const long = await sock.next((f) => f.args?.[0]?.startsWith('long ') === true);
    expect(Buffer.byteLength(long.args![0]!)).toBeLessThanOrEqual(4096);
    expect(long.args![0]).not.toContain('\ufffd');
    sock.send('send command', 'x'.repeat(65 * 1024));
    await expect(sock.next(() => false, 0, 3000)).rejects.toThrow(/closed \(1009\)/);
  });

  it('refuses a disallowed browser Origin with 403 at upgrade; no Origin is fine', async () => {
    const sess = await session(running().id);
    await expect(RawSocket.open(sess.socket, { origin: 'https://evil.example' })).rejects.toThrow('HTTP 403');
    open.push(await RawSocket.open(sess.socket));
  });

  it('replaces output a slow reader cannot take with N console lines skipped (slow connection)', async () => {
    const s = running();
    const node = consoleNodeOf(sandbox);
    const sess = await session(s.id);
    const sock = await connect(sess.socket, sess.token);
    const raw = (sock.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    await node.game(s.id)!.flood(150_000);
    raw.resume();
    const notice = await sock.next((f) => /^\d+ console lines skipped \(slow connection\)$/.test(f.args?.[0] ?? ''), 0, 15_000);
    const skipped = Number(notice.args![0]!.split(' ')[0]);
    await sock.next((f) => /flood 150000\/150000/.test(f.args?.[0] ?? '') || f === notice, 0, 15_000);
    expect(skipped).toBeGreaterThan(0);
    expect(sock.lines().filter((l) => l.includes('/150000 ')).length + skipped).toBe(150_000);
  }, 30_000);

  it('sends deleted and disconnects when the server is deleted', async () => {
    const s = offline();
    const sess = await session(s.id);
    const sock = await connect(sess.socket, sess.token);
    const res = await fetch(`${sandbox.baseUrl}/servers/${s.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${sandbox.keys.all}` } });
    expect(res.status).toBe(200);
    await sock.next(isEvent('deleted'));
    await expect(sock.next(() => false, 0, 3000)).rejects.toThrow(/closed \(1000\)/);
  });
});
