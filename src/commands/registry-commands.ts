import { type Command, Option } from 'commander';
import type { Family } from '../operations/types.js';
import { accessText } from '../operations/access-text.js';
import { type Leaf, leavesOf, needsServer } from '../operations/leaves.js';

import { collect } from '../core/fields.js';
import { flagName } from '../core/values.js';
import { FORMATS } from '../core/output.js';
import { GLOBAL_FLAG_NAMES } from '../core/global-flags.js';

// The one builder that turns registry data into commander commands
// (ARCHITECTURE.md "Lessons from other CLIs": stripe-cli's operation.go). Adding an endpoint is
// adding data; this file never names one.

/** Flags the builder itself adds to every command that could carry them. */
export const BUILDER_FLAGS = new Set(['server', 'wait', 'raw-field', 'field', 'input', 'quiet', 'all-servers', 'parallel', 'fail-fast', 'lint', 'if-absent', 'ready', 'announce', 'countdown', 'announce-cancel']);
/** Flags the builder adds to operations whose answer is a signed URL. */
const DOWNLOAD_FLAGS = ['to', 'clobber'];
/** Flags the builder adds to paged commands only; an unpaged op may declare its own `limit`. */
const PAGING_FLAGS = { offset: ['limit', 'offset', 'all'], page: ['page'] } as const;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const DEFAULT_ALIASES: Record<string, string> = { list: 'ls', delete: 'rm' };

/** Finds or makes the group command for `words` under `root` (e.g. `files` → `trash`). */
function group(root: Command, words: readonly string[]): Command {
  let cur = root;
  for (const w of words) {
    let next = cur.commands.find((c) => c.name() === w);
    if (!next) {
      next = cur.command(w);
      next.helpCommand(false);
    }
    cur = next;
  }
  return cur;
}

function kebab(name: string): string {
  return name.replace(/_/g, '-');
}

/**
 * Adds the families' commands under `top` (the command for the first word, already on the
 * program). A leaf a hand-written module already defined is left alone only if the module
 * declares it in `replaces`; an undeclared clash, or a declaration that replaces nothing, is a
 * bug in gsh and throws while the tree is built.
 */
export function addFamilyCommands(top: Command, families: readonly Family[], replaces: readonly string[] = [], words?: readonly string[]): void {
  const unused = new Set(replaces);
  const leaves = families.flatMap(leavesOf).filter((leaf) => leaf.words[0] === top.name());
  const branches = onlyBranches(top, leaves, words);
  for (const leaf of leaves) {
    const rest = leaf.words.slice(1);
    if (branches && rest.length > 0 && !branches.has(rest[0]!)) continue;
    if (rest.length === 0) {
      configureLeaf(top, leaf);
      continue;
    }
    const parent = group(top, rest.slice(0, -1));
    const name = rest[rest.length - 1] as string;
    if (parent.commands.some((c) => c.name() === name)) {
      const line = leaf.words.join(' ');
      if (!replaces.includes(line)) {
        throw new Error(`hand-written \`${line}\` clashes with the generated command for ${leaf.op.method} ${leaf.op.path}; list it in its module's \`replaces\``);
      }
      unused.delete(line);
      continue;
    }
    const cmd = parent.command(name);
    configureLeaf(cmd, leaf);
  }
  if (unused.size && !branches) throw new Error(`\`replaces\` names commands that replace no generated one: ${[...unused].join(', ')}`);
  describeGroups(top);
}

/**
 * The branches (second words) to build when argv runs one of them: building a word's every leaf
 * with commander is most of the start-up of `gsh servers list`. Any branch a word of argv names is
 * built (a word may be a value); everything is built when the first word names no branch (a typo
 * wants suggestions, a group wants its help) or when there are no words.
 */
function onlyBranches(top: Command, leaves: readonly Leaf[], words: readonly string[] | undefined): Set<string> | undefined {
  const first = words?.[0];
  if (first === undefined) return undefined;
  const named = leaves.some((leaf) => leaf.words[1] === first) || top.commands.some((c) => c.name() === first);
  return named ? new Set(words) : undefined;
}

/** A nested group without words of its own says which verbs it holds (`trash: list, delete, …`). */
function describeGroups(cmd: Command): void {
  for (const sub of cmd.commands) {
    if (sub.commands.length === 0) continue;
    describeGroups(sub);
    if (!sub.description()) sub.description(`${capitalize(sub.name())}: ${sub.commands.map((c) => c.name()).join(', ')}`);
  }
}

/** The leaf each generated command was built from (hand-written commands are not in it). */
export const generatedLeaves = new WeakMap<Command, Leaf>();

function configureLeaf(cmd: Command, leaf: Leaf): void {
  generatedLeaves.set(cmd, leaf);
  const { op, verb } = leaf;
  const last = leaf.words[leaf.words.length - 1] as string;
  const aliases = [...(op.aliases ?? []), ...(DEFAULT_ALIASES[last] ? [DEFAULT_ALIASES[last] as string] : [])];
  if (aliases.length) cmd.aliases(aliases);
  cmd.description(verb ? `${capitalize(verb)}: ${op.summary}` : op.summary);
  for (const p of op.params ?? []) cmd.argument(`<${kebab(p.name)}>`, p.description);
  if (op.serverArgument) cmd.argument('[server]', 'server id or name, instead of -s');
  if (needsServer(op)) {
    cmd.option('-s, --server <id|name>', 'server id or name (default: $GSH_SERVER); for several: repeat it, commas, a name glob, or - for stdin', collect);
    cmd.option('--all-servers', 'run on every server the key can reach');
    cmd.option('--parallel <n>', 'with several servers: how many run at once (default 4, at most 32)');
    cmd.option('--fail-fast', 'with several servers: start no new one after a failure');
  }

  for (const f of op.query ?? []) addFieldOption(cmd, f, leaf);
  if (op.paging === 'offset') {
    cmd.option('--limit <n>', 'items per page (default 25, max 100; the server clamps and echoes it)');
    cmd.option('--offset <n>', 'items to skip (default 0)');
    cmd.option('--all', 'fetch every page (concurrently, in order)');
  } else if (op.paging === 'page') {
    cmd.option('--page <n>', 'provider page, 1-indexed');
  }
  if (op.columns) cmd.option('-q, --quiet', `only each item's ${op.idField ?? 'id'} (id, uuid…: whatever its name), one a line`);
  else if (/ create$/.test(op.command)) cmd.option('-q, --quiet', 'only the created item\'s id (whatever its name; with --wait, when done)');
  if (BODY_METHODS.has(op.method)) {
    for (const f of op.body ?? []) if (f.name !== op.verbs?.field) addFieldOption(cmd, f, leaf);
    cmd.option('-f, --raw-field <key=value>', 'add a string body field (repeatable; a[b]= and a[]= nest)', collect);
    cmd.option('-F, --field <key=value>', 'add a typed body field: true/false/null/numbers, @file, @- (repeatable)', collect);
    cmd.option('--input <file>', 'JSON body from a file, or - for stdin (fields and flags are merged over it)');
    if ((op.body ?? []).some((f) => f.manifest)) cmd.option('--no-lint', 'send the manifest without linting it locally first');
    if (op.ifAbsent) cmd.option('--if-absent', `create only if none has the same ${op.ifAbsent.field}; otherwise print the existing one and exit 0 (several: exit 6)`);
  }
  if (op.signedUrl) {
    cmd.option('--to <file|dir|->', 'download what the signed URL serves: to this file (atomically), into this directory (named by the download), or - for stdout');
    cmd.option('--clobber', 'with --to: replace an existing file, keeping its mode (new files: 0644 less the umask)');
  }
  if (verb && op.console?.announce?.includes(verb)) {
    cmd.option('--announce <message>', `first warn the players: console command "say <message>" at each --countdown point ({left} becomes the time left)`);
    cmd.option('--countdown <times>', 'with --announce: when to announce, as time left before the action, e.g. 5m,1m,10s');
    cmd.option('--announce-cancel <message>', `with --announce: "say <message>" if Ctrl-C stops the countdown (no ${verb} is sent then; exit 130)`);
  }
  if (verb && op.console?.ready?.includes(verb)) {
    cmd.option('--ready [regex]', 'implies --wait: once running, wait for a console line matching REGEX (default: the settings\' done_message); exit 13 if it crashes or stops first');
  }
  if (op.wait) cmd.option('--wait', 'follow the result until it finishes');
  // A person (approval, ad view) is waited for on a terminal only, --wait or not; kept for scripts that pass it.
  else if (op.method !== 'GET') cmd.option('--wait', 'accepted for older scripts: a person who must act is waited for on a terminal only');

  cmd.addHelpText('after', helpFooter(leaf));
  cmd.action(async function action(this: Command) {
    const { runOperation } = await import('../core/invoke.js');
    await runOperation(leaf, this);
  });
}

function addFieldOption(cmd: Command, f: import('../operations/types.js').Field, leaf: Leaf): void {
  const flag = flagName(f);
  const paging: readonly string[] = leaf.op.paging ? PAGING_FLAGS[leaf.op.paging] : [];
  if (GLOBAL_FLAG_NAMES.has(flag) || BUILDER_FLAGS.has(flag) || paging.includes(flag) || (leaf.op.signedUrl && DOWNLOAD_FLAGS.includes(flag))) {
    throw new Error(`registry: ${leaf.op.method} ${leaf.op.path} field ${f.name} shadows the --${flag} flag; give it a "flag"`);
  }
  const extras = [
    f.required ? 'required' : '',
    f.default !== undefined ? `default ${String(f.default)}` : '',
    f.min !== undefined || f.max !== undefined ? `${f.clamp ? 'clamped to' : 'range'} ${f.min ?? ''}..${f.max ?? ''}` : '',
    f.maxItems !== undefined ? `at most ${f.maxItems}` : '',
  ].filter(Boolean);
  const desc = `${f.description}${extras.length ? ` (${extras.join('; ')})` : ''}`;
  if (f.type === 'boolean') {
    cmd.addOption(new Option(`--${flag}`, desc));
    if (f.sends === undefined) cmd.addOption(new Option(`--no-${flag}`, `send ${f.name}=false`).hideHelp());
    return;
  }
  if (f.secret) {
    // Secrets never travel on argv: the flag names a file (or - for stdin) holding the value.
    cmd.addOption(new Option(`--${flag}-file <file>`, `${desc}; read from a file, or - for stdin`));
    return;
  }
  const valueName = f.type === 'string[]' ? 'items' : f.type === 'integer' || f.type === 'number' ? 'n' : f.type === 'text-file' ? 'file' : 'value';
  const opt = new Option(`--${flag} <${valueName}>`, desc);
  if (f.choices && !f.open) opt.choices(f.choices as string[]);
  if (f.type === 'string[]') opt.argParser(collect).default(undefined);
  cmd.addOption(opt);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Examples of --announce and --ready, on the verbs that take them. */
function consoleExamples(op: import('../operations/types.js').Operation, verb: string | undefined): string[] {
  if (!verb) return [];
  const lines: string[] = [];
  if (op.console?.announce?.includes(verb)) {
    lines.push(`  gsh ${op.command} ${verb} -s 'lobby-*' --announce '${verb === 'restart' ? 'Restart' : 'Shutdown'} in {left}' --countdown 5m,1m,10s --announce-cancel '${verb === 'restart' ? 'Restart' : 'Shutdown'} cancelled'`);
    lines.push(`  gsh ${op.command} ${verb} -s lobby --announce 'Back in a minute ({left})' --countdown 30s,5s --dry-run   # the whole timeline`);
  }
  if (op.console?.ready?.includes(verb)) {
    lines.push(`  gsh ${op.command} ${verb} -s lobby --ready 'Done \\(' --timeout 5m   # ends on the console line, exit 13 on a crash`);
    lines.push(`  gsh ${op.command} ${verb} -s lobby --ready              # waits for the settings' done_message`);
  }
  return lines;
}

function helpFooter({ op, verb }: Leaf): string {
  const example = verb ? op.example.replace(new RegExp(`^gsh ${op.command} \\S+`), `gsh ${op.command} ${verb}`) : op.example;
  const lines = ['', 'Example:', `  ${example}`, ...consoleExamples(op, verb), '', 'API:'];
  lines.push(`  ${op.method} ${op.path}${verb && op.verbs ? `  (${op.verbs.field}=${verb})` : ''}`);
  if (op.signedUrl) lines.push('  then, with --to: GET <signed url> (no credential: the URL is its own; it expires)');
  if (op.auth === 'none') lines.push('  no credential needed');
  const { scope, permission } = accessText(op);
  if (scope) lines.push(`  scope: ${scope}`);
  if (permission) lines.push(`  server permission: ${permission}`);
  if (op.destructive) lines.push('  destructive: asks for confirmation on a terminal, needs --yes otherwise');
  lines.push(`  output: -o ${FORMATS.join('|')}`);
  return `${lines.join('\n')}\n`;
}
