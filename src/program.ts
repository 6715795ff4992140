import { Command, CommanderError, Option } from 'commander';
import { handWritten } from './commands/index.js';
import { addFamilyCommands } from './commands/registry-commands.js';
import { findWord } from './core/argv.js';
import { Exit } from './core/errors.js';
import { processStreams } from './core/io.js';
import { FORMATS } from './core/output.js';
import { reportError } from './core/report.js';
import { VERSION } from './core/version.js';
import { loadFamilies, topWords } from './operations/index.js';

// The commander program: global flags (DESIGN.md "Command grammar"), every top-level word, and
// the full subtree of the word being run. buildFullProgram() builds everything, for tools that
// need the whole tree (reference, completions, man pages).

const ROOT_HELP = `
Examples:
  $ gsh sandbox start                      # a local API to try everything against
  $ gsh auth login                         # save a base URL and API key (read from stdin or a prompt)
  $ gsh servers list --all -o json
  $ gsh power restart -s lobby --wait
  $ gsh init lint manifests/

Environment:
  GSH_API_KEY, GSH_TOKEN      credential (never pass secrets on the command line)
  GSH_BASE_URL                service root, e.g. https://host/api/v2
  GSH_PROFILE, GSH_SERVER     default profile and server
  GSH_CONFIG_DIR              where the auth store lives
  NO_COLOR, FORCE_COLOR       colour control

Exit codes: 0 ok, 1 error, 2 usage, 3 authentication, 4 permission, 5 not found, 6 conflict,
7 a person must act, 8 rate limited, 9 unavailable, 10 timed out, 130 interrupted.
`;

export function createProgram(): Command {
  const program = new Command('gsh')
    .description('Command-line client of the Game Server Hosting Public API v2')
    .version(VERSION, '-V, --version', 'print the version')
    .option('--profile <name>', 'auth profile to use (default: $GSH_PROFILE or the current one)')
    .option('--base-url <url>', 'service root, ending in /api/v2 (default: $GSH_BASE_URL or the profile)')
    .addOption(new Option('-o, --output <format>', 'output format').choices([...FORMATS]))
    .option('--json', 'same as -o json')
    .option('--no-color', 'never colour output (also NO_COLOR)')
    .option('--debug', 'trace requests and responses on stderr (secrets redacted)')
    .option('-y, --yes', 'confirm destructive operations without asking')
    .option('--no-input', 'never prompt; fail where a person would be asked')
    .option('--idempotency-key <key>', 'Idempotency-Key for the mutation (default: a fresh UUID per request)')
    .option('--retries <n>', 'retries on 429, 5xx and dropped connections (default 4)')
    .option('--timeout <duration>', 'limit on waiting (--wait, --expect), e.g. 90s or 10m (default 10m)')
    .addHelpText('after', ROOT_HELP)
    .showSuggestionAfterError(true)
    .exitOverride();
  program.configureHelp({ sortSubcommands: true, subcommandTerm: (c) => c.name() });
  return program;
}

function allWords(): Map<string, string> {
  const words = new Map<string, string>();
  for (const [w, t] of Object.entries(topWords)) words.set(w, t.summary);
  for (const [w, h] of Object.entries(handWritten)) if (!words.has(w)) words.set(w, h.summary);
  return words;
}

/** Registers `word` with its whole subtree under `program`. */
export async function addWord(program: Command, word: string, summary: string): Promise<Command> {
  const cmd = program.command(word).description(summary);
  cmd.helpCommand(false);
  inheritSettings(cmd);
  const hand = handWritten[word];
  if (hand) await (await hand.load()).register(cmd);
  const families = topWords[word]?.families ?? [];
  for (const family of await loadFamilies(families)) addFamilyCommands(cmd, family);
  return cmd;
}

/** Commander settings that must hold on every subcommand, however it was created. */
function inheritSettings(cmd: Command): void {
  cmd.exitOverride();
  cmd.showSuggestionAfterError(true);
}

export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = createProgram();
  const active = findWord(argv);
  for (const [word, summary] of allWords()) {
    if (word === active) await addWord(program, word, summary);
    else program.command(word).description(summary);
  }
  return program;
}

export async function buildFullProgram(): Promise<Command> {
  const program = createProgram();
  for (const [word, summary] of allWords()) await addWord(program, word, summary);
  return program;
}

function applyRecursively(cmd: Command, fn: (c: Command) => void): void {
  fn(cmd);
  for (const c of cmd.commands) applyRecursively(c, fn);
}

export async function run(argv: string[]): Promise<number> {
  const io = processStreams({ noColor: argv.includes('--no-color') });
  const json = argv.includes('--json') || argv.some((a, i) => (a === '-o' || a === '--output') && argv[i + 1] === 'json') || argv.includes('--output=json');
  const debug = argv.includes('--debug');
  try {
    const program = await buildProgram(argv);
    applyRecursively(program, inheritSettings);
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are successes; every parse problem is a usage error (exit 2).
      // A group run without a verb (`gsh servers`) prints its help to stderr as a usage error.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      if (err.code === 'commander.executeSubCommandAsync') return Exit.error;
      return Exit.usage;
    }
    return reportError(err, io, { json, debug });
  }
}
