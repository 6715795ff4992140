import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleLines } from '../../src/docs/command-tree.js';
import { loadDocTree } from '../../src/program.js';
import { treeOf } from '../../src/sandbox/node/server-files.js';
import { invocations, nodes, readmeLines } from '../helpers/examples.js';
import { type E2E, ensureRunning, setup } from './helpers.js';

// Issue 37 item 2: every example runs. Each `gsh …` of the README and of every help page's
// `Example:` lines (the man pages print the same help) is run here against an in-process sandbox,
// and must exit 0 (or the code its own comment names). test/unit/examples.test.ts checks the same
// lines against the command tree; the README's scripts run whole in readme-scripts.test.ts.
//
// How a line runs:
// - A read (every operation of the command is a GET, or it calls no API: `init lint`, `reference`)
//   runs for real; in a pipeline, each gsh reads what the gsh before it printed, and an
//   `echo '…' |` or `printf '%s' "$KEY" |` in front is its standard input.
// - Anything else (a mutation, a wait, a console session, a countdown) runs with `--dry-run`:
//   every flag, value, file and manifest is checked and the server names are looked up in the
//   sandbox, but nothing is changed (README "Dry runs").
// - A read that names a record by a made-up id (`hook_123`, a UUID) is planned the same way: the
//   sandbox holds no such record.
//
// Substitutions, the same for every line: the servers the examples name (`lobby`, `web`,
// `lobby-*`) are the sandbox's servers renamed; `https://api.example.com/api/v2` and PORT are the
// sandbox's address, `gsh_live_…` and `$KEY` its key, `$SIG` and `sha256=…` the signature of
// body.json; profile `ci` is logged in; `$id` is a
// backup that exists, `$day` today's date; the files the examples read (world.zip, plugins/,
// service-init.yaml, …) are made in the directory the lines run in. A line holding `…` (text left
// out) or `<placeholder>` is only checked against the command tree.
//
// Lines that cannot run here, each for a reason (keep this short):
const CANNOT_RUN: ReadonlyArray<[RegExp, string]> = [
  [/^sandbox start\b/, 'serves until Ctrl-C; its flags are checked by test/unit/examples.test.ts and it runs in test/e2e/binary.test.ts'],
  [/^sandbox exec\b.*-- npm run e2e/, 'runs a project\'s own npm script'],
  [/^sandbox exec\b/, 'starts a sandbox and a shell in a subprocess; the README\'s sandbox exec lines run in readme-scripts.test.ts'],
  [/^auth login --agent/, 'registers with the agent flow, which needs a person (test/e2e/agent-login.test.ts drives it)'],
  [/^auth claim\b|^agent claim\b/, 'needs an anonymous agent account (test/e2e/agent-person.test.ts)'],
  [/^modules versions\b/, 'the contract shows none of its parameters; the sandbox asks for `name`, which only `gsh api \'…/modules/versions?name=…\'` sends'],
  [/^completion \w+ *$/, 'prints a shell script; test/e2e/completion.test.ts runs it in bash, zsh and fish'],
];

/** The names the examples give servers: game servers, and apps (`-s web`, `-s api`). */
const GAME_SERVERS = ['lobby', 'survival', 'lobby-1', 'lobby-2', 'lobby-3', 'old-lobby', 'bedrock1'];
const APP_SERVERS = ['web', 'api'];
/** A record named by an id the examples make up (`hook_123`, a backup's UUID, a base64 id). */
const MADE_UP_ID = /(?:^|[\s/])(?:\w+_123\b|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/;

let t: E2E;
let cwd: string;
const previousCwd = process.cwd();
let backupId: string;
let lobbyId: string;
let reads: Map<string, boolean>;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  t = await setup({ servers: 48 });
  const all = [...t.sandbox.state.servers.values()].filter((s) => !s.stored);
  const games = all.filter((s) => s.application === 'minecraft');
  const apps = all.filter((s) => s.application === 'nodejs' || s.application === 'python');
  // The demo data may hold a `lobby` of its own: only the servers chosen below keep these names.
  for (const s of all) if ([...GAME_SERVERS, ...APP_SERVERS].includes(s.name)) s.name = `demo-${s.id}`;
  for (const [names, pool] of [[GAME_SERVERS, games], [APP_SERVERS, apps]] as const) {
    for (const [i, name] of names.entries()) {
      const s = pool[i]!;
      s.name = name;
      await ensureRunning(t.sandbox, s);
    }
  }
  lobbyId = games[0]!.id;
  cwd = mkdtempSync(join(tmpdir(), 'gsh-examples-'));
  makeFiles(cwd);
  // Relative paths in the lines (world.zip, --to backups/) are the files made above.
  process.chdir(cwd);
  // The archive the examples list (`files archive list --path /world.zip`) is on lobby, in the
  // sandbox node's own archive format (src/sandbox/handlers/file-tools.ts).
  treeOf(t.sandbox.extensions.context, lobbyId).write('/world.zip', gzipSync(JSON.stringify({ sandbox_archive: [] })));
  const login = await t.gsh(['auth', 'login', '--profile', 'ci', '--base-url', t.sandbox.baseUrl], { env: { GSH_API_KEY: undefined }, input: `${t.sandbox.keys.all}\n` });
  expect(login.exitCode, login.stderr).toBe(0);
  const backup = await t.gsh(['backups', 'create', '-s', 'lobby', '-q']);
  backupId = backup.stdout.trim();
  expect(backupId, backup.stderr).toMatch(/\S/);
  const reference = JSON.parse((await t.gsh(['reference', '--json'])).stdout) as { command: string; operations: { method: string }[] }[];
  reads = new Map(reference.map((r) => [r.command, r.operations.every((o) => o.method === 'GET')]));
});

afterAll(async () => {
  process.chdir(previousCwd);
  await t?.close();
  rmSync(cwd, { recursive: true, force: true });
});

/** A zip archive with no entries: its end-of-central-directory record alone. */
const EMPTY_ZIP = 'PK\x05\x06' + '\0'.repeat(18);
const BODY_JSON = '{"event":"server.started"}';
const HOOK_SECRET = 'whsec_example';
const signatureOf = (body: string, secret: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

function makeFiles(dir: string): void {
  const manifest = '#service-init\nversion: 1\n';
  const files: Record<string, string> = {
    'world.zip': EMPTY_ZIP,
    'README.md': '# a file to upload\n',
    'plugins/a.yml': 'a: 1\n',
    'plugins/sub/b.yml': 'b: 2\n',
    'config/server.yml': 'motd: hi\n',
    'server.yaml': manifest,
    'service-init.yaml': manifest,
    'overlay.yaml': manifest,
    'manifests/lobby.yaml': manifest,
    // gsh config: declarations in sync with the sandbox (an empty map declares the kind, compares nothing).
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

/** A line's words with the substitutions above. */
function substitute(argv: readonly string[]): string[] {
  return argv.map((a) =>
    a
      .replaceAll('https://api.example.com/api/v2', t.sandbox.baseUrl)
      .replace(/http:\/\/127\.0\.0\.1:PORT\/api\/v2/, t.sandbox.baseUrl)
      .replaceAll('$KEY', t.sandbox.keys.all)
      .replace(/^\/servers\/abc\//, `/servers/${lobbyId}/`)
      .replace(/^\$(HTTP_X_SERVICE_SIGNATURE|SIG)$|sha256=…/, signatureOf(BODY_JSON, HOOK_SECRET))
      .replaceAll('$id', backupId)
      .replaceAll('$day', today));
}

/**
 * What the line feeds its first gsh: `echo 'x' |`, `printf '%s' "$KEY" |`, `cat FILE |`,
 * `< FILE`. A command that reads standard input with nothing fed (`auth login`, `--token-file -`)
 * gets the sandbox's key, as a person would type or pipe it.
 */
function stdinOf(line: string): string {
  const words = parse(line, (name) => `$${name}`);
  const op = (w: unknown, o: string) => typeof w === 'object' && w !== null && 'op' in w && w.op === o;
  const from = words.findIndex((w) => op(w, '<'));
  if (from >= 0) return readFileSync(String(words[from + 1]), 'utf8');
  const pipe = words.findIndex((w) => op(w, '|'));
  const head = words.slice(0, Math.max(pipe, 0)).filter((w): w is string => typeof w === 'string');
  if (head[0] === 'echo') return `${substitute(head.slice(1)).join(' ')}\n`;
  if (head[0] === 'printf') return substitute(head.slice(2)).join('');
  if (head[0] === 'cat') return readFileSync(head[1] as string, 'utf8');
  return `${t.sandbox.keys.all}\n`;
}

/** The command a line's argv runs (`servers list`), as `gsh reference` names it. */
function commandOf(argv: readonly string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  for (let n = Math.min(4, words.length); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    if (reads.has(name)) return name;
  }
  return undefined;
}

const OFFLINE = /^(init (lint|schema|rules)|reference|version|cache (path|clear)|man|hooks verify|openapi|llms|auth (status|profiles|token|switch))\b/;

/** Whether the line runs for real (a read) or is planned (`--dry-run`). */
function isRead(argv: readonly string[]): boolean {
  const joined = argv.join(' ');
  // `gsh top` reads; a snapshot (--once) runs for real, the live view is planned on a terminal.
  if (argv[0] === 'top') return argv.includes('--once');
  // `gsh api` sends a GET unless a method or a body is given.
  if (argv[0] === 'api') return !argv.some((a) => /^(-X|--method|-f|-F|--input|--field|--raw-field)$/.test(a));
  if (argv[0] === 'wait') return false;
  if (MADE_UP_ID.test(` ${joined}`)) return false;
  if (/--watch|--follow|--wait|--ready|--until|--expect/.test(joined)) return false;
  if (OFFLINE.test(joined.replace(/^--profile \S+ /, ''))) return true;
  const command = commandOf(argv);
  return command !== undefined && reads.get(command) === true && !command.startsWith('console');
}

/** `gsh top` without --once or a script format is the live view: planned on a terminal, as typed. */
function onTerminal(argv: readonly string[]): boolean {
  return argv[0] === 'top' && !argv.some((a) => /^(--once|-o|--output|--json|--jq|-q)$/.test(a));
}

/** The exit code a line's own comment says it ends with (`# exit 5;`), else 0 (`# exit 10 on timeout` is a condition). */
function expectedExit(line: string): number {
  return Number(/#\s*exit (\d+)(?:[;:,]|\s*$)/.exec(line)?.[1] ?? 0);
}

/** How the invocations ran: for real, planned, or not at all (CANNOT_RUN, text left out). */
const tally = { real: 0, planned: 0, skipped: [] as string[] };

async function runLine(line: string): Promise<string[]> {
  // Each line starts from the same files (what an earlier line wrote, `--to servers.json`, is gone).
  for (const name of readdirSync(cwd)) rmSync(join(cwd, name), { recursive: true, force: true });
  makeFiles(cwd);
  const problems: string[] = [];
  let input: string | undefined = stdinOf(line);
  const all = invocations(line);
  for (const [i, raw] of all.entries()) {
    const argv = substitute(raw);
    const joined = argv.join(' ');
    const reason = CANNOT_RUN.find(([re]) => re.test(joined.replace(/^--\S+ \S+ /, '')));
    if (reason || argv.some((a) => a.includes('…') || /^<.*>$/.test(a) || /^(ID|UUID|FILE|DIR|PATH|CMD)$/.test(a))) {
      tally.skipped.push(`gsh ${raw.join(' ')}`);
      return problems;
    }
    const read = isRead(argv);
    tally[read ? 'real' : 'planned']++;
    // --dry-run goes first: global flags are taken anywhere, and after `--` a word is an argument.
    const run = read ? argv : ['--dry-run', ...argv];
    const tty = onTerminal(argv) ? { tty: { stdin: true, stdout: true, stderr: true, columns: 80 } } : {};
    const r = await t.gsh(run, { ...(input !== undefined ? { input } : {}), ...tty, env: { GSH_WEBHOOK_SECRET: HOOK_SECRET }, timeout: 20_000 });
    const expected = i === all.length - 1 ? expectedExit(line) : 0;
    if (r.exitCode !== expected || r.timedOut) {
      problems.push(`${line}\n    gsh ${run.join(' ')}: exit ${r.exitCode}${r.timedOut ? ' (timed out)' : ''}: ${r.stderr.split('\n').slice(0, 3).join(' / ')}`);
      return problems;
    }
    // The next gsh of a pipeline reads what this one printed (a plan, when this one was planned).
    input = i + 1 < all.length ? `${r.stdout}\n` : undefined;
  }
  return problems;
}

async function runAll(lines: Iterable<string>): Promise<{ problems: string[]; ran: number }> {
  const problems: string[] = [];
  let ran = 0;
  for (const line of new Set(lines)) {
    const p = await runLine(line);
    problems.push(...p);
    ran++;
  }
  return { problems, ran };
}

describe('every example runs against the sandbox', () => {
  it('every Example: line of every help page (the man pages print the same)', async () => {
    const docs = (await loadDocTree()).root;
    const lines: string[] = [];
    for (const node of nodes(docs)) lines.push(...exampleLines(node.helpAfter), ...(node.example ? [node.example] : []));
    const { problems, ran } = await runAll(lines);
    expect(problems, problems.join('\n')).toEqual([]);
    expect(ran).toBeGreaterThan(400);
  }, 300_000);

  it('every gsh line of the README', async () => {
    // Inline code in prose names commands (`gsh wait`, `gsh files get`); test/unit/examples.test.ts
    // checks those against the tree. The lines a reader copies whole, in blocks, run here.
    const { problems, ran } = await runAll(readmeLines().filter((l) => !l.endsWith(' # inline')));
    expect(problems, problems.join('\n')).toEqual([]);
    expect(ran).toBeGreaterThan(100);
  }, 300_000);

  it('most run for real or planned; few are left out', () => {
    expect(tally.real).toBeGreaterThan(150);
    expect(tally.planned).toBeGreaterThan(250);
    expect(tally.skipped.length, tally.skipped.join('\n')).toBeLessThan(30);
  });
});
