import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleLines } from '../../src/docs/command-tree.js';
import { loadDocTree } from '../../src/program.js';
import { HOOK_SECRET, isRead, makeFiles, type Scene, setUpScene, stdinOf, substitute, tearDownScene } from '../helpers/example-scene.js';
import { invocations, nodes, readmeLines } from '../helpers/examples.js';
import { type E2E, setup } from './helpers.js';

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
let t: E2E;
let scene: Scene;

beforeAll(async () => {
  t = await setup({ servers: 48 });
  scene = await setUpScene(t, 'gsh-examples-');
});

afterAll(() => tearDownScene(scene, t));

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
  for (const name of readdirSync(scene.cwd)) rmSync(join(scene.cwd, name), { recursive: true, force: true });
  makeFiles(scene.cwd);
  const problems: string[] = [];
  let input: string | undefined = stdinOf(scene, line);
  const all = invocations(line);
  for (const [i, raw] of all.entries()) {
    const argv = substitute(scene, raw);
    const joined = argv.join(' ');
    const reason = CANNOT_RUN.find(([re]) => re.test(joined.replace(/^--\S+ \S+ /, '')));
    if (reason || argv.some((a) => a.includes('…') || /^<.*>$/.test(a) || /^(ID|UUID|FILE|DIR|PATH|CMD)$/.test(a))) {
      tally.skipped.push(`gsh ${raw.join(' ')}`);
      return problems;
    }
    const read = isRead(scene, argv);
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
