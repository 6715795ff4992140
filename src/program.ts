import { Command, CommanderError, Option } from 'commander';
import type { FromProgram } from './commands/hand-written.js';
import { handWritten, handWrittenUses } from './commands/index.js';
import type { DocTree } from './docs/command-tree.js';
import { findWord, wordsAfter } from './core/flags/argv.js';
import { Exit } from './core/errors.js';
import type { Context } from './core/run/context.js';
import { flagsOf, GLOBAL_FLAG_TABLE, type GlobalFlag } from './core/flags/global-flags.js';
import { colorWhenIn, errorStream, outputStream, streamsFor } from './core/terminal/io.js';
import { bindRun } from './core/run/run-state.js';
import { similar } from './common/suggest.js';
import { VERSION } from './core/version.js';
import { loadAllFamilies, loadFamilies, topWords } from './operations/index.js';

// The commander program: global flags (ARCHITECTURE.md "Command grammar"), every top-level word,
// and the full subtree of the word being run. buildFullProgram() builds everything, for tools that
// need the whole tree (reference, completions, man pages: loadDocTree(), handed to the commands).

const ROOT_HELP = `
Examples:
  $ gsh sandbox start                      # a local API to try everything against
  $ gsh auth login                         # save a base URL and API key (read from stdin or a prompt)
  $ gsh servers list --all -o json
  $ gsh power restart -s lobby --wait
  $ gsh power restart -s lobby --dry-run       # the request it would send, sending nothing
  $ gsh init lint manifests/

Environment:
  GSH_API_KEY, GSH_TOKEN      credential (never pass secrets on the command line)
  GSH_BASE_URL                service root, e.g. https://host/api/v2
  GSH_PROFILE, GSH_SERVER     default profile and server
  GSH_CONFIG_DIR              where the auth store lives
  GSH_CACHE_DIR               where compiled code and printed help are cached
                              (NODE_DISABLE_COMPILE_CACHE: none)
  GSH_REQUEST_TIMEOUT         default for --request-timeout
  GSH_MAX_RESPONSE_BYTES      most of an answer read into memory (default 64M; downloads and
                              gsh api --to FILE stream past it)
  NO_COLOR, CLICOLOR=0        no colour (--color always|never beats the environment)
  CLICOLOR_FORCE, FORCE_COLOR colour even when piped

Exit codes: 0 ok, 1 error, 2 usage, 3 authentication, 4 permission, 5 not found, 6 conflict,
7 a person must act, 8 rate limited, 9 unavailable, 10 timed out, 11 some of several servers
failed, 12 a wait cannot tell (the record shows nothing gsh reads), 13 --ready: the server
crashed or stopped first, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM). A change that
fails says whether it was applied and gives the command that replays it safely (its
--idempotency-key).
`;

export function createProgram(): Command {
  const program = new Command('gsh')
    .description('Command-line client of the Game Server Hosting Public API v2')
    .addHelpText('after', ROOT_HELP)
    .showSuggestionAfterError(false)
    .exitOverride();
  for (const f of GLOBAL_FLAG_TABLE as readonly GlobalFlag[]) {
    if (f.version) {
      program.version(VERSION, flagsOf(f), f.description);
      continue;
    }
    const option = new Option(flagsOf(f), f.description);
    if (f.choices) option.choices(f.choices);
    program.addOption(option);
  }
  // Not sortSubcommands: commander sorts with localeCompare, whose first call initialises ICU
  // collation (~5-10 ms of every start). allWords() hands the words over already sorted.
  program.configureHelp({ subcommandTerm: (c) => c.name() });
  return program;
}

/** Every top-level word with its summary, in code-unit order (the words are lowercase ASCII). */
function allWords(): Map<string, string> {
  const words = new Map<string, string>();
  for (const [w, t] of Object.entries(topWords)) words.set(w, t.summary);
  for (const [w, h] of Object.entries(handWritten)) if (!words.has(w)) words.set(w, h.summary);
  return new Map([...words].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Registers `word` with its subtree under `program`: the whole subtree, or with `words` (what
 * argv says after `word`) only the branches a word of argv names (see addFamilyCommands). With
 * `helpAsked` and no word after `word`, argv asks for the word's help, which lists its generated
 * verbs by name: they are registered without their flags (`gsh servers --help`).
 */
export async function addWord(program: Command, word: string, summary: string, words?: readonly string[], helpAsked = false): Promise<Command> {
  const cmd = program.command(word).description(summary);
  cmd.helpCommand(false);
  inheritSettings(cmd);
  const hand = handWritten[word] && (await handWritten[word].load());
  await hand?.register(cmd, FROM_PROGRAM);
  // A hand-written verb being run (`init lint`) needs none of the generated commands beside it.
  const first = words?.[0];
  const handVerb = first === undefined ? undefined : cmd.commands.find((c) => c.name() === first || c.aliases().includes(first));
  const families = topWords[word]?.families ?? [];
  if (families.length && !(handVerb && handVerb.commands.length === 0)) {
    // The builder is needed only for the word being run, never for `gsh --help`.
    const { addFamilyCommands } = await import('./commands/registry-commands.js');
    addFamilyCommands(cmd, await loadFamilies(families), hand?.replaces, words, { listOnly: helpAsked && words?.length === 0 });
  }
  return cmd;
}

/** Commander settings that must hold on every subcommand, however it was created. */
function inheritSettings(cmd: Command): void {
  cmd.exitOverride();
  cmd.showSuggestionAfterError(false);
}

/** Commander's own help and errors go to the run's streams, not process. */
function writeTo(ctx: Context): (cmd: Command) => void {
  const output = { writeOut: (s: string) => void outputStream(ctx.stdout).write(s), writeErr: (s: string) => void errorStream(ctx.stderr).write(s) };
  return (cmd) => void cmd.configureOutput(output);
}

/** The deepest command argv names, and the first word that names none. */
function walk(program: Command, argv: readonly string[]): { cmd: Command; unknown?: string } {
  let cmd = program;
  for (const a of argv) {
    if (a === '--') break;
    if (a.startsWith('-')) continue;
    const sub = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!sub) return { cmd, unknown: a };
    cmd = sub;
  }
  return { cmd };
}

/** Our "Did you mean" after commander's unknown-command and unknown-option errors. */
function suggestion(program: Command, argv: readonly string[], err: CommanderError): string | undefined {
  const { cmd, unknown } = walk(program, argv);
  let found: string[] = [];
  if (err.code === 'commander.unknownCommand' && unknown) {
    found = similar(unknown, cmd.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  } else if (err.code === 'commander.unknownOption') {
    const flag = /'(--[^'=]+)/.exec(err.message)?.[1];
    const longs: string[] = [];
    for (let c: Command | null = cmd; c; c = c.parent) for (const o of c.options) if (o.long) longs.push(o.long);
    if (flag) found = similar(flag, longs);
  }
  if (found.length === 0) return undefined;
  return `(Did you mean ${found.length > 1 ? `one of ${found.join(', ')}` : found[0]}?)`;
}

/**
 * The program for argv: a word argv runs is registered alone, with its subtree (no other word is
 * looked at when it runs, its help lists none, and its errors suggest from its own subtree);
 * without one, or with a word gsh does not have, every word by name, for the root's help and the
 * "Did you mean". Registering the sixty words with commander was a fiftieth of `servers list`.
 */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = createProgram();
  const words = allWords();
  const active = findWord(argv);
  const summary = active === undefined ? undefined : words.get(active);
  if (active !== undefined && summary !== undefined) await addWord(program, active, summary, wordsAfter(argv), asksForHelp(argv));
  else for (const [word, text] of words) program.command(word).description(text);
  return program;
}

/** `--help` or `-h` before any `--`. */
function asksForHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

export async function buildFullProgram(): Promise<Command> {
  const program = createProgram();
  for (const [word, summary] of allWords()) await addWord(program, word, summary);
  return program;
}

/**
 * Every command as documentation data (`gsh reference`, `completion`, `man`, `npm run generate`).
 * It lives here because only the program builds the whole tree; docs and the builder are loaded
 * only when it is called, so `gsh --help` does not pay for them.
 */
export async function loadDocTree(): Promise<DocTree> {
  const [{ describeTree }, { generatedLeaves }, program, families, uses] = await Promise.all([
    import('./docs/command-tree.js'),
    import('./commands/registry-commands.js'),
    buildFullProgram(),
    loadAllFamilies(),
    handWrittenUses(),
  ]);
  return describeTree({ program, families, uses, generatedLeaf: (cmd) => generatedLeaves.get(cmd) });
}

const FROM_PROGRAM: FromProgram = { docTree: loadDocTree };

function applyRecursively(cmd: Command, fn: (c: Command) => void): void {
  fn(cmd);
  for (const c of cmd.commands) applyRecursively(c, fn);
}

/** What a run says of itself besides its exit code. */
export interface RunSeen {
  /** Set when what it printed was commander's help and nothing else ran. */
  helpShown?: boolean;
}

/**
 * Runs one command line in `ctx` and returns its exit code. Nothing here or below touches
 * `process`: src/cli.ts hands in the real streams, tests their own
 * (ARCHITECTURE.md "Plan, then execute").
 */
export async function run(argv: string[], ctx: Context, seen: RunSeen = {}): Promise<number> {
  // The shells' completion of live names, on every TAB: answered before commander is involved.
  if (argv[0] === '__complete') return (await import('./commands/complete.js')).complete(argv.slice(1), ctx);
  // jq's WebAssembly compiles on V8's background threads while the program is built and the
  // command planned; the expression is still checked before any request (Runtime.prepare).
  // A chunk that fails to load is compileJq's to report, with its context, not an internal error here.
  if (argv.some((a) => a === '--jq' || a.startsWith('--jq='))) void import('./core/terminal/jq.js').then((jq) => jq.warmUp(), () => undefined);
  const io = streamsFor(ctx, { color: colorWhenIn(argv) });
  const json = argv.includes('--json') || argv.some((a, i) => (a === '-o' || a === '--output') && argv[i + 1] === 'json') || argv.includes('--output=json');
  const debug = argv.includes('--debug');
  let program: Command | undefined;
  try {
    program = await buildProgram(argv);
    const result = bindRun(program, ctx, argv);
    applyRecursively(program, writeTo(ctx));
    if (argv.length === 0) {
      // Plain `gsh` is a request for orientation, not a mistake.
      program.outputHelp();
      seen.helpShown = true;
      return 0;
    }
    applyRecursively(program, inheritSettings);
    await program.parseAsync(argv, { from: 'user' });
    return result.exitCode() ?? 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      const hint = program && suggestion(program, argv, err);
      if (hint) io.stderr.write(`${hint}\n`);
      // Help and version are successes; every parse problem is a usage error (exit 2).
      // Asked-for help (`--help`, `gsh help servers`) succeeds; a group run without a verb
      // (`gsh servers`) prints its help to stderr as a usage error.
      if (err.code === 'commander.version') return 0;
      if (err.code === 'commander.helpDisplayed' || (err.code === 'commander.help' && err.exitCode === 0)) {
        seen.helpShown = true;
        return 0;
      }
      if (err.code === 'commander.help') return Exit.usage;
      if (err.code === 'commander.executeSubCommandAsync') return Exit.error;
      return Exit.usage;
    }
    const { reportError } = await import('./core/terminal/report.js');
    return reportError(err, io, { json, debug, argv });
  }
}
