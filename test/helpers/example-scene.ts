import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parse } from 'shell-quote';
import { expect } from 'vitest';
import { treeOf } from '../../src/sandbox/node/server-files.js';
import { type E2E, ensureRunning } from '../e2e/helpers.js';

// The scene every `Example:` line runs in (test/e2e/examples-run.test.ts against a plain sandbox,
// test/e2e/hostile-examples.test.ts against a hostile one): the servers the examples name, the
// files they read, a logged-in profile `ci`, a backup, and the substitutions that make a line's
// words this sandbox's (its address, its key, `$SIG`, `$id`, `$day`).

export const GAME_SERVERS = ['lobby', 'survival', 'lobby-1', 'lobby-2', 'lobby-3', 'old-lobby', 'bedrock1'];
export const APP_SERVERS = ['web', 'api'];
/** A record named by a made-up id (`hook_123`, a UUID): the sandbox holds none, so such a read is planned. */
export const MADE_UP_ID = /(?:^|[\s/])(?:\w+_123\b|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/;
export const OFFLINE = /^(init (lint|schema|rules)|reference|version|cache (path|clear)|man|hooks verify|openapi|llms|auth (status|profiles|token|switch))\b/;
export const BODY_JSON = '{"event":"server.started"}';
export const HOOK_SECRET = 'whsec_example';
const today = new Date().toISOString().slice(0, 10);
/** A zip archive with no entries: its end-of-central-directory record alone. */
const EMPTY_ZIP = 'PK\x05\x06' + '\0'.repeat(18);

export interface Scene {
  t: E2E;
  /** The directory the lines run in (the process's working directory while the scene stands). */
  cwd: string;
  lobbyId: string;
  backupId: string;
  /** Each command of `gsh reference`: whether all its operations are reads. */
  reads: Map<string, boolean>;
  /** The servers the examples name, by that name. */
  ids: Map<string, string>;
}

const previousCwd = process.cwd();

/** Renames the sandbox's servers to the examples' names, makes the files, logs in `ci`, makes a backup; chdirs into the files. */
export async function setUpScene(t: E2E, dirPrefix: string): Promise<Scene> {
  const all = [...t.sandbox.state.servers.values()].filter((s) => !s.stored);
  const games = all.filter((s) => s.application === 'minecraft');
  const apps = all.filter((s) => s.application === 'nodejs' || s.application === 'python');
  const ids = new Map<string, string>();
  // The demo data may hold a `lobby` of its own: only the servers chosen below keep these names.
  for (const s of all) if ([...GAME_SERVERS, ...APP_SERVERS].includes(s.name)) s.name = `demo-${s.id}`;
  for (const [names, pool] of [[GAME_SERVERS, games], [APP_SERVERS, apps]] as const) {
    for (const [i, name] of names.entries()) {
      const s = pool[i];
      if (!s) continue;
      s.name = name;
      ids.set(name, s.id);
      await ensureRunning(t.sandbox, s);
    }
  }
  const lobbyId = games[0]!.id;
  const cwd = mkdtempSync(join(tmpdir(), dirPrefix));
  makeFiles(cwd);
  // Relative paths in the lines (world.zip, --to backups/) are the files made above.
  process.chdir(cwd);
  // The archive the examples list (`files archive list --path /world.zip`) is on lobby, in the
  // sandbox node's own archive format (src/sandbox/handlers/file-tools.ts).
  treeOf(t.sandbox.extensions.context, lobbyId).write('/world.zip', gzipSync(JSON.stringify({ sandbox_archive: [] })));
  // The template account.yaml declares (README "Configuration as code": init templates).
  const template = await t.gsh(['init', 'templates', 'create', 'manifests/lobby.yaml', '--name', 'paper-lobby', '--description', 'Paper lobby']);
  expect(template.exitCode, template.stderr).toBe(0);
  const login = await t.gsh(['auth', 'login', '--profile', 'ci', '--base-url', t.sandbox.baseUrl], { env: { GSH_API_KEY: undefined }, input: `${t.sandbox.keys.all}\n` });
  expect(login.exitCode, login.stderr).toBe(0);
  // By id: a hostile sandbox's names are not `lobby` as sent.
  const backup = await t.gsh(['backups', 'create', '-s', lobbyId, '-q']);
  const backupId = backup.stdout.trim();
  expect(backupId, backup.stderr).toMatch(/^\S+$/);
  const reference = JSON.parse((await t.gsh(['reference', '--json'])).stdout) as { command: string; operations: { method: string }[] }[];
  const reads = new Map(reference.map((r) => [r.command, r.operations.every((o) => o.method === 'GET')]));
  return { t, cwd, lobbyId, backupId, reads, ids };
}

export async function tearDownScene(scene: Scene | undefined, t: E2E | undefined): Promise<void> {
  process.chdir(previousCwd);
  await t?.close();
  if (scene) rmSync(scene.cwd, { recursive: true, force: true });
}

/** The files the examples read, made anew in `dir`. */
export function makeFiles(dir: string): void {
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
    // gsh config: the account's init templates, in sync once setUpScene saved paper-lobby.
    'account.yaml': 'version: 1\ntemplates:\n  - name: paper-lobby\n    description: Paper lobby\n    manifest: manifests/lobby.yaml\n',
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
    // gsh fleet report: journals of a finished rollout (one run, and a CI matrix's two shards).
    'restart.jsonl': journal("gsh power restart -s 'lobby-*' --batch 1,25% --pause 30s --max-fail 10% --wait", [['0000000a', 'lobby-1'], ['0000000b', 'lobby-2']]),
    'shard-1.jsonl': journal('gsh power restart --shard 1/2 -s lobby-1,lobby-2', [['0000000a', 'lobby-1']]),
    'shard-2.jsonl': journal('gsh power restart --shard 2/2 -s lobby-1,lobby-2', [['0000000b', 'lobby-2']]),
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  mkdirSync(join(dir, 'backups'), { recursive: true });
}

/** A journal (core/fleet/journal.ts) in which every named server finished ok. */
function journal(command: string, servers: readonly (readonly [string, string])[]): string {
  const at = '2026-01-01T00:00:00.000Z';
  const run = { journal: 1, kind: 'run', at, command, targets: servers.map(([id, name]) => ({ id, name })) };
  const results = servers.map(([id, name]) => ({ journal: 1, kind: 'result', at, command, server_id: id, server_name: name, ok: true, exit_code: 0, outcome: 'applied', idempotency_key: null }));
  return [run, ...results].map((l) => `${JSON.stringify(l)}\n`).join('');
}

/**
 * A file glob (`shard-*.jsonl`: a `*` before a file extension) stands for the scene's files it
 * matches, as the shell expands it (no match: the word as it is). A server glob (`'lobby-*'`) is quoted.
 */
function expandFiles(word: string): string[] {
  if (!/\*[^*/]*\.\w+$/.test(word) || word.includes('/')) return [word];
  const re = new RegExp(`^${word.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  const names = readdirSync('.').filter((name) => re.test(name)).sort();
  return names.length ? names : [word];
}

/** A line's words with the substitutions above. */
export function substitute(scene: Scene, argv: readonly string[]): string[] {
  const { sandbox } = scene.t;
  const sig = `sha256=${createHmac('sha256', HOOK_SECRET).update(BODY_JSON).digest('hex')}`;
  return argv.flatMap(expandFiles).map((a) =>
    a
      .replaceAll('https://api.example.com/api/v2', sandbox.baseUrl)
      .replace(/http:\/\/127\.0\.0\.1:PORT\/api\/v2/, sandbox.baseUrl)
      .replaceAll('$KEY', sandbox.keys.all)
      .replace(/^\/servers\/abc\//, `/servers/${scene.lobbyId}/`)
      .replace(/^\$(HTTP_X_SERVICE_SIGNATURE|SIG)$|sha256=…/, sig)
      .replaceAll('$id', scene.backupId)
      .replaceAll('$SHARD', '1') // a CI matrix's shard number
      .replaceAll('$day', today));
}

/**
 * What the line feeds its first gsh: `echo 'x' |`, `printf '%s' "$KEY" |`, `cat FILE |`,
 * `< FILE`. A command that reads standard input with nothing fed (`auth login`, `--token-file -`)
 * gets the sandbox's key, as a person would type or pipe it.
 */
export function stdinOf(scene: Scene, line: string): string {
  const words = parse(line, (name) => `$${name}`);
  const op = (w: unknown, o: string) => typeof w === 'object' && w !== null && 'op' in w && w.op === o;
  const from = words.findIndex((w) => op(w, '<'));
  if (from >= 0) return readFileSync(String(words[from + 1]), 'utf8');
  const pipe = words.findIndex((w) => op(w, '|'));
  const head = words.slice(0, Math.max(pipe, 0)).filter((w): w is string => typeof w === 'string');
  if (head[0] === 'echo') return `${substitute(scene, head.slice(1)).join(' ')}\n`;
  if (head[0] === 'printf') return substitute(scene, head.slice(2)).join('');
  if (head[0] === 'cat') return readFileSync(head[1] as string, 'utf8');
  return `${scene.t.sandbox.keys.all}\n`;
}

/** The command a line's argv runs (`servers list`), as `gsh reference` names it. */
export function commandOf(scene: Scene, argv: readonly string[]): string | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  for (let n = Math.min(4, words.length); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    if (scene.reads.has(name)) return name;
  }
  return undefined;
}

/** Whether the line runs for real (a read) or is planned (`--dry-run`). */
export function isRead(scene: Scene, argv: readonly string[]): boolean {
  const joined = argv.join(' ');
  // `gsh top` reads; a snapshot (--once) runs for real, the live view is planned on a terminal.
  if (argv[0] === 'top') return argv.includes('--once');
  // `gsh api` sends a GET unless a method or a body is given.
  if (argv[0] === 'api') return !argv.some((a) => /^(-X|--method|-f|-F|--input|--field|--raw-field)$/.test(a));
  if (argv[0] === 'wait') return false;
  if (MADE_UP_ID.test(` ${joined}`)) return false;
  if (/--watch|--follow|--wait|--ready|--until|--expect/.test(joined)) return false;
  // An AI client's file written (mcp install, uninstall) and a bridge started (mcp doctor) are planned: nothing written or started.
  if (/^mcp (install|uninstall|doctor)\b/.test(joined.replace(/^--profile \S+ /, '')) && !argv.includes('--print')) return false;
  if (OFFLINE.test(joined.replace(/^--profile \S+ /, ''))) return true;
  const command = commandOf(scene, argv);
  return command !== undefined && scene.reads.get(command) === true && !command.startsWith('console');
}
