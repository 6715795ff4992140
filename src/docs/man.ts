import { VERSION } from '../core/version.js';
import { type DocArgument, type DocCommand, type DocOption, type DocTree, leaves } from './command-tree.js';
import { foldHelp } from './man-fold.js';

// Manual pages in man(7) roff: gsh.1 (global flags, environment, exit codes, the families) and one
// gsh-<word>.1 per top-level word with each of its commands: synopsis, arguments, flags and the
// text its --help prints after them (examples, API, scope, permission). Clean under mandoc -Tlint.

/**
 * The date in each page's header. Fixed, not today's, so regenerating gives identical files (the
 * staleness test compares them); move it with the version when releasing.
 */
export const MAN_DATE = '2026-11-22';

/** File name → page, for gsh.1 and every top-level word. */
export function manPages(tree: DocTree): Map<string, string> {
  const pages = new Map([['gsh.1', mainPage(tree)]]);
  for (const word of tree.root.children) pages.set(`gsh-${name(word)}.1`, wordPage(word));
  return pages;
}

function name(c: DocCommand): string {
  return c.words[c.words.length - 1] as string;
}

function mainPage(tree: DocTree): string {
  const { root } = tree;
  const words = [...root.children].sort((a, b) => name(a).localeCompare(name(b)));
  return wrapPage([
    header('gsh'),
    '.SH NAME',
    `gsh \\- ${text(lowerFirst(root.summary))}`,
    '.SH SYNOPSIS',
    '.B gsh',
    '.RI [ global\\-flags ]',
    '.I command',
    '.RI [ subcommand ]',
    '.RI [ arguments ]',
    '.RI [ flags ]',
    '.SH DESCRIPTION',
    `${text(root.summary)}.`,
    'Each command has its own page, listed below; every command also accepts the global flags.',
    '.B gsh reference',
    'lists every command with the API operations it calls.',
    '.SH COMMANDS',
    ...words.flatMap((w) => ['.TP', `.BR gsh\\-${text(name(w))} (1)`, text(w.summary)]),
    '.SH GLOBAL FLAGS',
    ...tree.globals.flatMap(optionItem),
    ...(root.helpAfter ? ['.SH NOTES', ...literal(root.helpAfter)] : []),
    '.SH SEE ALSO',
    words.map((w) => `.BR gsh\\-${text(name(w))} (1)${w === words[words.length - 1] ? '' : ' ,'}`).join('\n'),
  ]);
}

function wordPage(word: DocCommand): string {
  const w = name(word);
  return wrapPage([
    header(`gsh-${w}`),
    '.SH NAME',
    `gsh\\-${text(w)} \\- ${text(lowerFirst(word.summary))}`,
    '.SH SYNOPSIS',
    ...leaves(word).flatMap((c) => [...synopsis(c), '.br']).slice(0, -1),
    '.SH DESCRIPTION',
    `${text(word.summary)}.`,
    'Every command also accepts the global flags described in',
    '.BR gsh (1).',
    '.SH COMMANDS',
    ...leaves(word).flatMap(commandSection),
    '.SH SEE ALSO',
    '.BR gsh (1)',
  ]);
}

function header(page: string): string {
  // No hyphenation and a ragged right margin: flag names and paths stay whole and copyable.
  return `.TH ${text(page.toUpperCase())} 1 ${MAN_DATE} "gsh ${VERSION}" "User Commands"\n.nh\n.ad l`;
}

function synopsis(c: DocCommand): string[] {
  const args = c.arguments.map((a) => (a.required ? `.I ${text(a.name)}` : `.RI [ ${text(a.name)} ]`));
  return [`.B gsh ${c.words.map(text).join(' ')}`, ...args, '.RI [ flags ]'];
}

function commandSection(c: DocCommand): string[] {
  const title = [...c.words, ...c.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`))].join(' ');
  const lines = [`.SS "gsh ${text(title)}"`, text(sentence(c.summary))];
  if (c.aliases.length) lines.push(`Alias: ${c.aliases.map((a) => `\\fB${text(a)}\\fR`).join(', ')}.`);
  for (const a of c.arguments) lines.push(...argumentItem(a));
  for (const o of c.options) lines.push(...optionItem(o));
  if (c.helpAfter) lines.push(...(c.arguments.length || c.options.length ? ['.PP'] : []), ...literal(c.helpAfter));
  return lines;
}

function argumentItem(a: DocArgument): string[] {
  return ['.TP', `.I ${text(a.name)}`, text(`${a.description || 'argument'}${a.required ? '' : ' (optional)'}`)];
}

function optionItem(o: DocOption): string[] {
  const value = /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1];
  const term = `${o.names.map((n) => `\\fB${text(n)}\\fR`).join(', ')}${value ? ` \\fI${text(value)}\\fR` : ''}`;
  const notes = [o.required ? 'Required.' : '', o.choices ? `One of: ${o.choices.join(', ')}.` : ''].filter(Boolean);
  return ['.TP', term, text([sentence(o.description), ...notes].join(' '))];
}

/**
 * Columns left for help text in a literal block: man-db and mandoc indent a section's body by 7,
 * and the block adds 4, within the 80 columns a page must render in.
 */
const LITERAL_COLUMNS = 80 - 7 - 4;

/** Help text as printed, folded to fit: no filling, indented, each line protected from roff. */
function literal(help: string): string[] {
  return ['.RS 4', '.nf', ...foldHelp(help, LITERAL_COLUMNS).map((l) => (l.trim() === '' ? '' : text(l))), '.fi', '.RE'];
}

/**
 * Text lines of at most 80 bytes (mandoc -Tlint's style rule), broken at spaces. Filled text may
 * break anywhere; a no-fill line is continued with \\c so it still prints as one line.
 */
function wrapPage(lines: string[]): string {
  let noFill = false;
  const out: string[] = [];
  for (const line of lines.join('\n').split('\n')) {
    if (line.startsWith('.')) {
      if (line === '.nf' || line === '.fi') noFill = line === '.nf';
      out.push(line);
      continue;
    }
    let rest = line;
    for (let cut = breakAt(rest, noFill ? 78 : 80); cut > 0; cut = breakAt(rest, noFill ? 78 : 80)) {
      out.push(noFill ? `${rest.slice(0, cut + 1)}\\c` : rest.slice(0, cut));
      rest = noFill ? rest.slice(cut + 1) : rest.slice(cut + 1).trimStart();
      if (/^[.']/.test(rest)) rest = `\\&${rest}`;
    }
    out.push(rest);
  }
  return `${out.join('\n')}\n`;
}

/** The last space before `limit` bytes, when the line is longer than 80 bytes; else -1. */
function breakAt(line: string, limit: number): number {
  if (Buffer.byteLength(line) <= 80) return -1;
  let cut = -1;
  for (let i = line.indexOf(' '); i > 0 && Buffer.byteLength(line.slice(0, i)) <= limit; i = line.indexOf(' ', i + 1)) cut = i;
  return cut;
}

/** Roff-safe text: backslashes and dashes escaped, a leading dot or quote neutralised. */
function text(s: string): string {
  const escaped = s.replace(/\\/g, '\\e').replace(/-/g, '\\-');
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped;
}

function sentence(s: string): string {
  return /[.!?]$/.test(s) || s === '' ? s : `${s}.`;
}

function lowerFirst(s: string): string {
  return /^[A-Z][a-z]/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s;
}
