import { exampleLines } from '../../src/docs/command-tree.js';
import { loadDocTree } from '../../src/program.js';
import { type E2E, setup } from '../e2e/helpers.js';
import { HOOK_SECRET, isRead, type Scene, setUpScene, stdinOf, substitute, tearDownScene } from './example-scene.js';
import { invocations, nodes } from './examples.js';
import { leaks } from './terminal-leaks.js';

// The terminal door (issue 44; src/ARCHITECTURE.md "Doors"): every `Example:` line of every help
// page runs against a hostile sandbox (src/sandbox/hostile.ts: every name, message, URL to open
// and console line carries CSI, OSC 0/8/52, DCS, C1, bidi, zero-width and wide characters, CR, LF
// and TAB) on a terminal with colour on, and only gsh's own sequences reach it
// (test/helpers/terminal-leaks.ts). The lines run as test/e2e/examples-run.test.ts runs them
// (same substitutions and files; a read for real, anything else with --dry-run, which still
// looks the names up and checks every file), in a pool against one sandbox. The service's names
// are hostile, so a line that names `lobby` finds none and prints the service's names in its "did
// you mean" (text the tests want on the terminal too); so each line that names a server runs a
// second time with the server's id in place of its name, and gets past the lookup to the answers.
// The two passes are two test files (hostile-examples.test.ts by name, hostile-examples-by-id.test.ts
// by id), so that they run at once in two workers. The exit codes are not checked here;
// examples-run.test.ts checks them against a plain sandbox.

const TTY = { stdout: true, stderr: true, columns: 100 };
const COLOUR = { NO_COLOR: undefined, TERM: 'xterm' };
const CONCURRENCY = 6;

// Lines that cannot run here, each for a reason; the test fails on an entry that skips no line.
export const CANNOT_RUN: ReadonlyArray<[RegExp, string]> = [
  [/^sandbox start\b/, 'serves until Ctrl-C (examples-run.test.ts: test/e2e/binary.test.ts runs it)'],
  [/^sandbox exec\b/, 'starts a sandbox and a shell in a subprocess (readme-scripts.test.ts runs the README\'s)'],
  [/^auth claim\b|^agent claim\b/, 'needs an anonymous agent account (test/e2e/agent-person.test.ts)'],
];

export interface HostilePass {
  /** Example lines of the help pages (both passes). */
  lines: number;
  problems: string[];
  /** The lines each CANNOT_RUN entry skipped. */
  skipped: Map<RegExp, string[]>;
  ran: number;
  /** Invocations that ran for real (reads). */
  real: number;
  /** Runs whose terminal showed the service's escapes as text (the hostile text did reach it). */
  shown: number;
  /** Runs that got past the name lookup (the pass by id). */
  passedLookup: number;
}

/** A hostile sandbox and the examples' scene, for one test file (`stop` in its afterAll). */
export async function hostileScene(): Promise<{ t: E2E; scene: Scene; stop: () => Promise<void> }> {
  const t = await setup({ servers: 24, clock: 'fast', hostile: true });
  const scene = await setUpScene(t, 'gsh-hostile-examples-');
  return { t, scene, stop: () => tearDownScene(scene, t) };
}

/**
 * Runs every example line (`byId` false), or again each line that names a server with the
 * server's id in place of its name (`byId` true: the line reaches past the name lookup, since the
 * service's names are hostile and `lobby` names none, and shows what the service answers).
 */
export async function hostilePass(t: E2E, scene: Scene, byId: boolean): Promise<HostilePass> {
  const docs = (await loadDocTree()).root;
  const lines = new Set<string>();
  for (const node of nodes(docs)) for (const l of [...exampleLines(node.helpAfter), ...(node.example ? [node.example] : [])]) lines.add(l);
  const pass: HostilePass = { lines: lines.size, problems: [], skipped: new Map(), ran: 0, real: 0, shown: 0, passedLookup: 0 };
  const runs = byId ? [...lines].filter((l) => invocations(l).some((argv) => argv.some((a) => scene.ids.has(a)))) : [...lines];
  await pool(runs, CONCURRENCY, (l) => runLine(t, scene, pass, l, byId));
  return pass;
}

async function runLine(t: E2E, scene: Scene, pass: HostilePass, line: string, byId: boolean): Promise<void> {
  let input: string | undefined = stdinOf(scene, line);
  for (const raw of invocations(line)) {
    const argv = substitute(scene, raw).map((a) => (byId ? (scene.ids.get(a) ?? a) : a));
    const joined = argv.join(' ').replace(/^--\S+ \S+ /, '');
    const reason = CANNOT_RUN.find(([re]) => re.test(joined));
    if (reason) {
      if (!byId) pass.skipped.set(reason[0], [...(pass.skipped.get(reason[0]) ?? []), line]);
      return;
    }
    // Text left out (`…`, `<placeholder>`) is checked against the tree by test/unit/examples.test.ts.
    if (argv.some((a) => a.includes('…') || /^<.*>$/.test(a) || /^(ID|UUID|FILE|DIR|PATH|CMD)$/.test(a))) return;
    const read = isRead(scene, argv);
    if (read) pass.real++;
    const run = read ? argv : ['--dry-run', ...argv];
    const top = argv[0] === 'top' && !read;
    const r = await t.gsh(run, { ...(input !== undefined ? { input } : {}), env: { ...COLOUR, GSH_WEBHOOK_SECRET: HOOK_SECRET }, tty: top ? { ...TTY, stdin: true } : TTY, timeout: 20_000 });
    pass.ran++;
    if (`${r.stdout}${r.stderr}`.includes('^[]52;c;')) pass.shown++;
    if (byId) pass.passedLookup += r.stderr.includes('matches no server') ? 0 : 1;
    if (r.timedOut) pass.problems.push(`gsh ${run.join(' ')}: timed out`);
    for (const [name, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
      const bad = leaks(text);
      if (bad.length) pass.problems.push(`${line}\n    gsh ${run.join(' ')} (${name}): ${bad.slice(0, 3).join(' ')}`);
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
