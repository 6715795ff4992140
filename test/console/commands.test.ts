import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consoleNodeOf } from '../../src/sandbox/console-node/index.js';
import { startSandbox, type Sandbox, type ServerRecord } from '../../src/sandbox/index.js';
import { inProcess, until, within, type InProcess } from './in-process.js';

// `gsh console attach|send|history|stats` run in-process (run(argv, ctx)) against the sandbox's
// API and console node: plan first (checks before any request, --dry-run sends nothing), piped
// attach ends at the end of its input, signals come from the context.

let sandbox: Sandbox;
/** The test's run, cleaned up after it. */
let current: InProcess;
beforeAll(async () => {
  sandbox = await startSandbox({ timeScale: 0.05 });
});
afterAll(async () => {
  await sandbox.close();
});
afterEach(() => {
  current.stdin.end();
  current.dispose();
});

function fresh(): InProcess {
  current = inProcess(sandbox);
  return current;
}

const running = (): ServerRecord => [...sandbox.state.servers.values()].find((s) => s.state === 'running')!;
const consoleLines = (s: ServerRecord) => consoleNodeOf(sandbox).game(s.id)!.buffer.tail(200);
/** The requests the sandbox saw while `fn` ran, as `METHOD path` (-s is resolved with GET /servers). */
async function requestsDuring(fn: () => Promise<void>): Promise<string[]> {
  const from = sandbox.log.length;
  await fn();
  return sandbox.log.slice(from).map((e) => `${e.method} ${e.path}`);
}

describe('console attach, piped', () => {
  it('sends each line of stdin and exits 0 at the end of input, leaving no socket open', async () => {
    const s = running();
    const io = fresh();
    io.stdin.end('say piped one\nsay piped two\n');
    let code: number | undefined;
    const seen = await requestsDuring(async () => {
      code = await within(15_000, 'piped attach', io.run(['console', 'attach', '-s', s.id, '--no-history']));
    });
    expect(code).toBe(0);
    // The id's check (README "Remembered servers": an id-shaped reference is checked first), then the session.
    expect(seen).toEqual([`GET /servers/${s.id}`, `POST /servers/${s.id}/console/token`]);
    expect(io.stderr()).toMatch(/attached to .*the end of input or Ctrl-C detaches/);
    // The node echoes each command it ran; both arrived, in order.
    await until(() => consoleLines(s).includes('> say piped two'), 5000, 'the second command on the node');
    const lines = consoleLines(s);
    expect(lines.indexOf('> say piped one')).toBeGreaterThanOrEqual(0);
    expect(lines.indexOf('> say piped one')).toBeLessThan(lines.indexOf('> say piped two'));
    // Detaching waited for the node's answer, so the user saw it.
    expect(io.stdout()).toContain('[Server] piped two');
    await until(() => consoleNodeOf(sandbox).connectionCount(s.id) === 0, 5000, 'the socket to close');
  });

  it('exits 1 when a piped line cannot be sent (larger than a socket frame), after sending the rest', async () => {
    const s = running();
    const io = fresh();
    io.stdin.end(`say ${'x'.repeat(70_000)}\nsay after the big one\n`);
    expect(await within(15_000, 'piped attach', io.run(['console', 'attach', '-s', s.id, '--no-history']))).toBe(1);
    expect(io.stderr()).toMatch(/64 KiB/);
    expect(io.stderr()).toMatch(/1 of 2 piped commands were not sent/);
    await until(() => consoleLines(s).includes('> say after the big one'), 5000, 'the second command on the node');
  });

  it('--read-only does not read stdin and streams past its end until SIGINT (exit 130)', async () => {
    const s = running();
    const io = fresh();
    io.stdin.end('say never sent\n');
    let settled = false;
    const done = io.run(['console', 'attach', '-s', s.id, '--no-history', '--read-only']).finally(() => (settled = true));
    await io.waitForStderr(/attached to .*\(read-only\); Ctrl-C detaches/);
    await new Promise((r) => setTimeout(r, 800));
    expect(settled).toBe(false);
    expect(io.signals.listenerCount('SIGINT')).toBe(1);
    io.signals.emit('SIGINT');
    expect(await within(5000, 'attach after SIGINT', done)).toBe(130);
    expect(io.signals.listenerCount('SIGINT')).toBe(0);
    expect(io.signals.listenerCount('SIGTERM')).toBe(0);
    expect(consoleLines(s)).not.toContain('> say never sent');
  });

  it('SIGINT on the context detaches an attach whose input is still open, with exit 130', async () => {
    const s = running();
    const io = fresh();
    const done = io.run(['console', 'attach', '-s', s.id, '--no-history']);
    await io.waitForStderr(/attached to/);
    io.stdin.write('say before the interrupt\n');
    await until(() => consoleLines(s).includes('> say before the interrupt'), 5000, 'the command on the node');
    io.signals.emit('SIGINT');
    expect(await within(5000, 'attach after SIGINT', done)).toBe(130);
    expect(io.stdout()).toContain('> say before the interrupt');
  });
});

describe('console commands check what was typed before any request', () => {
  it.each([
    ['send --expect with a bad regex', ['console', 'send', 'list', '--expect', '('], /--expect is not a valid regular expression/],
    ['send with two lines', ['console', 'send', 'say a\nsay b'], /must be a single line/],
    ['history --limit 0', ['console', 'history', '--limit', '0'], /--limit must be a whole number from 1 to 1000/],
  ])('%s: exit 2, nothing sent (not even the name lookup)', async (_name, argv, message) => {
    const io = fresh();
    let code: number | undefined;
    // A name, not an id: resolving it would be a GET.
    const seen = await requestsDuring(async () => {
      code = await io.run([...argv, '-s', running().name]);
    });
    expect(code).toBe(2);
    expect(io.stderr()).toMatch(message);
    expect(seen).toEqual([]);
  });
});

describe('console --dry-run', () => {
  it('attach prints the session POST and the socket work, sends no POST and opens no socket', async () => {
    const s = running();
    // An earlier test's interrupted attach may still be closing its socket on a loaded machine.
    await until(() => consoleNodeOf(sandbox).connectionCount(s.id) === 0, 5000, 'earlier sockets to close');
    const io = fresh();
    let code: number | undefined;
    const seen = await requestsDuring(async () => {
      code = await io.run(['console', 'attach', '-s', s.name, '--dry-run']);
    });
    expect(code).toBe(0);
    expect(io.stdout()).toContain(`POST ${sandbox.baseUrl}/servers/${s.id}/console/token\n`);
    expect(io.stdout()).toMatch(/then: open the console socket, replay recent output \(send logs\) and stream output until the end of standard input/);
    expect(io.stdout()).toMatch(/then: send each line of standard input as a console command/);
    expect(io.stderr()).toMatch(/Dry run: nothing was sent/);
    expect(seen).toEqual(['GET /servers']);
    expect(consoleNodeOf(sandbox).connectionCount(s.id)).toBe(0);
  });

  it('send --expect -o json: the session POST, then the command POST with its body and key, then the wait', async () => {
    const s = running();
    const io = fresh();
    let code: number | undefined;
    const seen = await requestsDuring(async () => {
      code = await io.run(['console', 'send', '-s', s.id, 'say hi', '--expect', 'hi', '--idempotency-key', 'k-dry', '--dry-run', '-o', 'json']);
    });
    expect(code).toBe(0);
    const plan = JSON.parse(io.stdout()) as { requests: Array<{ method: string; url: string; headers: Record<string, string>; body?: unknown }>; then: Array<{ kind: string }> };
    expect(plan.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST ${sandbox.baseUrl}/servers/${s.id}/console/token`,
      `POST ${sandbox.baseUrl}/servers/${s.id}/commands`,
    ]);
    expect(plan.requests[1]!.body).toEqual({ command: 'say hi' });
    expect(plan.requests[1]!.headers['idempotency-key']).toBe('k-dry');
    expect(plan.requests[0]!.headers['idempotency-key']).not.toBe('k-dry');
    expect(plan.then.map((t) => t.kind)).toEqual(['stream', 'wait']);
    expect(seen).toEqual([`GET /servers/${s.id}`]);
  });

  it('send without --expect prints just the command POST', async () => {
    const s = running();
    const io = fresh();
    let code: number | undefined;
    const seen = await requestsDuring(async () => {
      code = await io.run(['console', 'send', '-s', s.id, 'say dry', '--dry-run']);
    });
    expect(code).toBe(0);
    expect(io.stdout()).toBe(`server "${s.id}": a server id, of ${s.name}\nPOST ${sandbox.baseUrl}/servers/${s.id}/commands\n  {\n    "command": "say dry"\n  }\n`);
    expect(seen).toEqual([`GET /servers/${s.id}`]);
  });
});

describe('console send, history and stats', () => {
  it('send --expect prints the matching line; --idempotency-key goes on the command POST only', async () => {
    const s = running();
    const io = fresh();
    expect(await io.run(['console', 'send', '-s', s.id, 'list', '--expect', 'players online', '--idempotency-key', 'k-list'])).toBe(0);
    expect(io.stdout()).toMatch(/There are 0 of a max of 20 players online/);
    const posts = sandbox.log.filter((e) => e.method === 'POST' && e.path.startsWith(`/servers/${s.id}/`));
    expect(posts.find((e) => e.path.endsWith('/commands') && e.idempotencyKey === 'k-list')?.status).toBeLessThan(300);
    expect(posts.some((e) => e.path.endsWith('/console/token') && e.idempotencyKey === 'k-list')).toBe(false);
  });

  it('history --json prints one page of the size asked for', async () => {
    const s = running();
    const io = fresh();
    expect(await io.run(['console', 'history', '-s', s.id, '--limit', '3', '--json'])).toBe(0);
    const page = JSON.parse(io.stdout()) as { data: string[]; has_more: boolean };
    expect(page.data).toEqual(consoleLines(s).slice(-3));
    expect(page.has_more).toBe(true);
  });

  it('stats --json prints the node’s stats', async () => {
    const s = running();
    const io = fresh();
    expect(await io.run(['console', 'stats', '-s', s.id, '--json'])).toBe(0);
    expect(JSON.parse(io.stdout())).toMatchObject({ state: 'running' });
  });

  it('stats --watch streams until SIGINT on the context (exit 130)', async () => {
    const s = running();
    const io = fresh();
    const done = io.run(['console', 'stats', '-s', s.id, '--watch', '--json']);
    await until(() => io.stdout().includes('"state":"running"'), 10_000, 'a stats line');
    io.signals.emit('SIGINT');
    expect(await within(5000, 'stats --watch after SIGINT', done)).toBe(130);
    expect(io.signals.listenerCount('SIGINT')).toBe(0);
  });
});
