import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleLines } from '../../src/docs/command-tree.js';
import { loadDocTree } from '../../src/program.js';
import { treeOf } from '../../src/sandbox/node/server-files.js';
import { invocations, nodes } from '../helpers/examples.js';
import { leaks } from '../helpers/terminal-leaks.js';
import { type E2E, ensureRunning, setup } from './helpers.js';

// The terminal door (issue 44; src/ARCHITECTURE.md "Doors"): every `Example:` line of every help
// page runs against a hostile sandbox (src/sandbox/hostile.ts: every name, message, URL to open
// and console line carries CSI, OSC 0/8/52, DCS, C1, bidi, zero-width and wide characters, CR, LF
// and TAB) on a terminal with colour on, and only gsh's own sequences reach it
// (test/helpers/terminal-leaks.ts). The lines run as test/e2e/examples-run.test.ts runs them
// (same substitutions and files; a read for real, anything else with --dry-run, which still
// looks the names up and checks every file), in a pool against one sandbox. The service's names
// are hostile, so a line that names `lobby` finds none and prints the service's names in its "did
// you mean" (text this test wants on the terminal too); so each line that names a server runs a
// second time with the server's id in place of its name, and gets past the lookup to the answers.
// The exit codes are not checked here; examples-run.test.ts checks them against a plain sandbox.

const TTY = { stdout: true, stderr: true, columns: 100 };
const COLOUR = { NO_COLOR: undefined, TERM: 'xterm' };
const CONCURRENCY = 6;

// Lines that cannot run here, each for a reason; the test fails on an entry that skips no line.
const CANNOT_RUN: ReadonlyArray<[RegExp, string]> = [
  [/^sandbox start\b/, 'serves until Ctrl-C (examples-run.test.ts: test/e2e/binary.test.ts runs it)'],
  [/^sandbox exec\b/, 'starts a sandbox and a shell in a subprocess (readme-scripts.test.ts runs the README\'s)'],
  [/^auth claim\b|^agent claim\b/, 'needs an anonymous agent account (test/e2e/agent-person.test.ts)'],
];

const GAME_SERVERS = ['lobby', 'survival', 'lobby-1', 'lobby-2', 'lobby-3', 'old-lobby', 'bedrock1'];
const APP_SERVERS = ['web', 'api'];
const MADE_UP_ID = /(?:^|[\s/])(?:\w+_123\b|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/;
const OFFLINE = /^(init (lint|schema|rules)|reference|version|cache (path|clear)|man|hooks verify|openapi|llms|auth (status|profiles|token|switch))\b/;
const BODY_JSON = '{"event":"server.started"}';
const HOOK_SECRET = 'whsec_example';
const today = new Date().toISOString().slice(0, 10);

let t: E2E;
let cwd: string;
const previousCwd = process.cwd();
let backupId: string;
let lobbyId: string;
let reads: Map<string, boolean>;
/** The servers the examples name, by the name they have in the sandbox's store (the answers add HOSTILE to it). */
const ids = new Map<string, string>();

function makeFiles(dir: string): void {
  const manifest = '#service-init\nversion: 1\n';
  const files: Record<string, string> = {
    'world.zip': 'PK\x05\x06' + '\0'.repeat(18),
    'README.md': '# a file to upload\n',
    'plugins/a.yml': 'a: 1\n',
    'plugins/sub/b.yml': 'b: 2\n',
    'config/server.yml': 'motd: hi\n',
    'server.yaml': manifest,
    'service-init.yaml': manifest,
    'overlay.yaml': manifest,
    'manifests/lobby.yaml': manifest,
    'servers/lobby.yaml': 'version: 1\nserver: lobby\nproperties: {}\n',
    'fleet.yaml': 'version: 1\nservers:\n  "lobby-*":\n    properties: {}\n',
    'restore.json': '{"files": ["/world"]}',
    'level.json': '{"changes": []}',
    'edit.json': '{"changes": []}',
    'nbt.json': '{"changes": []}',
    'updates.json': '{"changes": []}',
    'body.json': BODY_JSON,
    'hook.secret': `${HOOK_SECRET}\n`,
    'claim-token.txt': 'claim_example\n',
    'id-jag.txt': 'eyJhbGciOiJub25lIn0.e30.\n',
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  mkdirSync(join(dir, 'backups'), { recursive: true });
}

beforeAll(async () => {
  t = await setup({ servers: 24, clock: 'fast', hostile: true });
  const all = [...t.sandbox.state.servers.values()].filter((s) => !s.stored);
  const games = all.filter((s) => s.application === 'minecraft');
  const apps = all.filter((s) => s.application === 'nodejs' || s.application === 'python');
  for (const s of all) if ([...GAME_SERVERS, ...APP_SERVERS].includes(s.name)) s.name = `demo-${s.id}`;
  for (const [names, list] of [[GAME_SERVERS, games], [APP_SERVERS, apps]] as const) {
    for (const [i, name] of names.entries()) {
      const s = list[i];
      if (!s) continue;
      s.name = name;
      ids.set(name, s.id);
      await ensureRunning(t.sandbox, s);
    }
  }
  lobbyId = games[0]!.id;
  cwd = mkdtempSync(join(tmpdir(), 'gsh-hostile-examples-'));
  makeFiles(cwd);
  process.chdir(cwd);
  treeOf(t.sandbox.extensions.context, lobbyId).write('/world.zip', gzipSync(JSON.stringify({ sandbox_archive: [] })));
  const login = await t.gsh(['auth', 'login', '--profile', 'ci', '--base-url', t.sandbox.baseUrl], { env: { GSH_API_KEY: undefined }, input: `${t.sandbox.keys.all}\n` });
  expect(login.exitCode, login.stderr).toBe(0);
  // By id: the hostile sandbox's names are not `lobby` as sent.
  const backup = await t.gsh(['backups', 'create', '-s', lobbyId, '-q']);
  backupId = backup.stdout.trim();
  expect(backupId, backup.stderr).toMatch(/^\S+$/);
  const reference = JSON.parse((await t.gsh(['reference', '--json'])).stdout) as { command: string; operations: { method: string }[] }[];
  reads = new Map(reference.map((r) => [r.command, r.operations.every((o) => o.method === 'GET')]));
}, 60_000);

afterAll(async () => {
  process.chdir(previousCwd);
  await t?.close();
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

function substitute(argv: readonly string[]): string[] {
  const sig = `sha256=${createHmac('sha256', HOOK_SECRET).update(BODY_JSON).digest('hex')}`;
  return argv.map((a) =>
    a
      .replaceAll('https://api.example.com/api/v2', t.sandbox.baseUrl)
      .replace(/http:\/\/127\.0\.0\.1:PORT\/api\/v2/, t.sandbox.baseUrl)
      .replaceAll('$KEY', t.sandbox.keys.all)
      .replace(/^\/servers\/abc\//, `/servers/${lobbyId}/`)
      .replace(/^\$(HTTP_X_SERVICE_SIGNATURE|SIG)$|sha256=…/, sig)
      .replaceAll('$id', backupId)
      .replaceAll('$day', today));
}

/** What the line feeds its first gsh (`echo 'x' |`, `printf '%s' "$KEY" |`), else the sandbox's key as a person would type it. */
function stdinOf(line: string): string {
  const words = parse(line, (name) => `$${name}`);
  const pipe = words.findIndex((w) => typeof w === 'object' && w !== null && 'op' in w && w.op === '|');
  const head = words.slice(0, Math.max(pipe, 0)).filter((w): w is string => typeof w === 'string');
  if (head[0] === 'echo') return `${substitute(head.slice(1)).join(' ')}\n`;
  if (head[0] === 'printf') return substitute(head.slice(2)).join('');
  return `${t.sandbox.keys.all}\n`;
}

function commandOf(argv: readonly string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  for (let n = Math.min(4, words.length); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    if (reads.has(name)) return name;
  }
  return undefined;
}

/** As examples-run.test.ts: a read runs for real, anything else is planned. */
function isRead(argv: readonly string[]): boolean {
  const joined = argv.join(' ');
  if (argv[0] === 'top') return argv.includes('--once');
  if (argv[0] === 'api') return !argv.some((a) => /^(-X|--method|-f|-F|--input|--field|--raw-field)$/.test(a));
  if (argv[0] === 'wait') return false;
  if (MADE_UP_ID.test(` ${joined}`)) return false;
  if (/--watch|--follow|--wait|--ready|--until|--expect/.test(joined)) return false;
  if (OFFLINE.test(joined.replace(/^--profile \S+ /, ''))) return true;
  const command = commandOf(argv);
  return command !== undefined && reads.get(command) === true && !command.startsWith('console');
}

const problems: string[] = [];
const skipped = new Map<RegExp, string[]>();
let ran = 0;
let real = 0;
/** Runs whose terminal showed the service's escapes as text (the hostile text did reach it). */
let shown = 0;
/** Runs by id that got past the name lookup. */
let passedLookup = 0;

/**
 * Runs a line's gsh invocations. `byId`: a word that is a server's name is its id instead, so the
 * line reaches past the name lookup (the service's names are hostile, so `lobby` names none) and
 * shows what the service answers.
 */
async function runLine(line: string, byId: boolean): Promise<void> {
  let input: string | undefined = stdinOf(line);
  for (const raw of invocations(line)) {
    const argv = substitute(raw).map((a) => (byId ? (ids.get(a) ?? a) : a));
    const joined = argv.join(' ').replace(/^--\S+ \S+ /, '');
    const reason = CANNOT_RUN.find(([re]) => re.test(joined));
    if (reason) {
      if (!byId) skipped.set(reason[0], [...(skipped.get(reason[0]) ?? []), line]);
      return;
    }
    // Text left out (`…`, `<placeholder>`) is checked against the tree by test/unit/examples.test.ts.
    if (argv.some((a) => a.includes('…') || /^<.*>$/.test(a) || /^(ID|UUID|FILE|DIR|PATH|CMD)$/.test(a))) return;
    const read = isRead(argv);
    if (read) real++;
    const run = read ? argv : ['--dry-run', ...argv];
    const top = argv[0] === 'top' && !read;
    const r = await t.gsh(run, { ...(input !== undefined ? { input } : {}), env: { ...COLOUR, GSH_WEBHOOK_SECRET: HOOK_SECRET }, tty: top ? { ...TTY, stdin: true } : TTY, timeout: 20_000 });
    ran++;
    if (`${r.stdout}${r.stderr}`.includes('^[]52;c;')) shown++;
    if (byId) passedLookup += r.stderr.includes('matches no server') ? 0 : 1;
    if (r.timedOut) problems.push(`gsh ${run.join(' ')}: timed out`);
    for (const [name, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
      const bad = leaks(text);
      if (bad.length) problems.push(`${line}\n    gsh ${run.join(' ')} (${name}): ${bad.slice(0, 3).join(' ')}`);
    }
    input = `${r.stdout}\n`;
  }
}

async function pool<T>(items: readonly T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

describe('every example against a hostile service, on a colour terminal (issue 44)', () => {
  it('every Example: line of every help page: only gsh\'s own sequences reach the terminal', async () => {
    const docs = (await loadDocTree()).root;
    const lines = new Set<string>();
    for (const node of nodes(docs)) for (const l of [...exampleLines(node.helpAfter), ...(node.example ? [node.example] : [])]) lines.add(l);
    expect(lines.size).toBeGreaterThan(400);
    const runs: [string, boolean][] = [...lines].map((l) => [l, false]);
    // Again by id, where the line names a server.
    for (const l of lines) if (invocations(l).some((argv) => argv.some((a) => ids.has(a)))) runs.push([l, true]);
    await pool(runs, CONCURRENCY, ([l, byId]) => runLine(l, byId));
    expect(problems, problems.join('\n')).toEqual([]);
    expect(ran).toBeGreaterThan(700);
    expect(real).toBeGreaterThan(200);
    expect(shown).toBeGreaterThan(100);
    expect(passedLookup).toBeGreaterThan(200);
    // Every skip names its reason and skips something; few lines are skipped.
    for (const [re, why] of CANNOT_RUN) expect(skipped.get(re)?.length ?? 0, `${re} (${why}) skips no line`).toBeGreaterThan(0);
    expect([...skipped.values()].flat().length).toBeLessThan(25);
  }, 120_000);
});
