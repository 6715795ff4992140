import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleLines } from '../../src/docs/command-tree.js';
import { loadDocTree } from '../../src/program.js';
import { HOOK_SECRET, isRead, type Scene, setUpScene, stdinOf, substitute, tearDownScene } from '../helpers/example-scene.js';
import { invocations, nodes } from '../helpers/examples.js';
import { leaks } from '../helpers/terminal-leaks.js';
import { type E2E, setup } from './helpers.js';

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

let t: E2E;
let scene: Scene;

beforeAll(async () => {
  t = await setup({ servers: 24, clock: 'fast', hostile: true });
  scene = await setUpScene(t, 'gsh-hostile-examples-');
}, 60_000);

afterAll(() => tearDownScene(scene, t));

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
  let input: string | undefined = stdinOf(scene, line);
  for (const raw of invocations(line)) {
    const argv = substitute(scene, raw).map((a) => (byId ? (scene.ids.get(a) ?? a) : a));
    const joined = argv.join(' ').replace(/^--\S+ \S+ /, '');
    const reason = CANNOT_RUN.find(([re]) => re.test(joined));
    if (reason) {
      if (!byId) skipped.set(reason[0], [...(skipped.get(reason[0]) ?? []), line]);
      return;
    }
    // Text left out (`…`, `<placeholder>`) is checked against the tree by test/unit/examples.test.ts.
    if (argv.some((a) => a.includes('…') || /^<.*>$/.test(a) || /^(ID|UUID|FILE|DIR|PATH|CMD)$/.test(a))) return;
    const read = isRead(scene, argv);
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
    for (const l of lines) if (invocations(l).some((argv) => argv.some((a) => scene.ids.has(a)))) runs.push([l, true]);
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
