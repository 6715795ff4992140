// Help text (written for an 80-column terminal with no indent) folded to fit a man page's literal
// block, which starts 11 columns in: a man page must render within 80 columns. Lines keep their
// meaning when folded: a shell command continues with ` \` (still copyable), a table row hangs
// under its description column, a paragraph at the margin is refilled, and a long path breaks
// after a `/`.

/** Columns a terminal shows, for the ASCII text help is written in (indices are columns too). */
function width(s: string): number {
  return [...s].length;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Lines of `help` no wider than `columns`, in the same order and with the same words. */
export function foldHelp(help: string, columns: number): string[] {
  const lines = help.split('\n');
  const out: string[] = [];
  let examples = false;
  for (let i = 0; i < lines.length;) {
    const line = lines[i] as string;
    if (line.trim() === '') {
      examples = false;
      out.push(line);
      i++;
    } else if (indentOf(line) === 0 && !/^Examples?:\s*$/.test(line)) {
      let end = i;
      while (end < lines.length && (lines[end] as string).trim() !== '' && indentOf(lines[end] as string) === 0) end++;
      const run = lines.slice(i, end);
      out.push(...(run.some((l) => width(l) > columns) ? fold(run.join(' '), columns, 0, proseBreaks) : run));
      i = end;
    } else if (/^Examples?:\s*$/.test(line) || examples || line.trimStart().startsWith('$ ')) {
      examples ||= /^Examples?:\s*$/.test(line);
      out.push(...foldCommand(line, columns));
      i++;
    } else {
      // A row and the lines the author indented under it (a table's wrapped description) refill as one.
      let end = i + 1;
      while (end < lines.length && (lines[end] as string).trim() !== '' && indentOf(lines[end] as string) > indentOf(line)) end++;
      const item = lines.slice(i, end);
      const joined = [line, ...item.slice(1).map((l) => l.trim())].join(' ');
      out.push(...(item.some((l) => width(l) > columns) ? fold(joined, columns, hangingIndent(line, columns), proseBreaks) : item));
      i = end;
    }
  }
  return out;
}

/** Where continuation lines of a row start: under the second column of a table, else 2 deeper. */
function hangingIndent(line: string, columns: number): number {
  const column = /^\s*\S+(?: \S+)*\s{2,}(?=\S)/.exec(line)?.[0].length;
  return column !== undefined && column <= columns / 2 ? column : indentOf(line) + 2;
}

/** Break positions by preference: the first tier with one that fits is used. */
type Breaks = (line: string) => number[][];

/** Break positions in prose: every space after the indent. */
const proseBreaks: Breaks = (line) => {
  const found: number[] = [];
  for (let i = line.indexOf(' ', indentOf(line)); i !== -1; i = line.indexOf(' ', i + 1)) found.push(i);
  return [found];
};

/**
 * Break positions in a command: spaces outside quotes, so `-f title="Season 2"` stays one word;
 * preferably not between a flag and its value.
 */
const shellBreaks: Breaks = (line) => {
  const found: number[] = [];
  let quote = '';
  for (let i = indentOf(line); i < line.length; i++) {
    const c = line[i] as string;
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ' ') found.push(i);
  }
  const afterFlag = (at: number): boolean =>
    /(?:^|\s)-\S*$/.test(line.slice(0, at)) && !line.startsWith('-', at + 1);
  return [found.filter((at) => !afterFlag(at)), found];
};

/**
 * Greedy folding at the given break positions (spaces, dropped at the break); continuation lines
 * start at column `hang` and all but the last end with `suffix`. In prose, a word too long for
 * any line (an API path) breaks after its last `/` that fits; a command's words stay whole.
 */
function fold(line: string, columns: number, hang: number, breaks: Breaks, suffix = ''): string[] {
  const splitWords = suffix === '';
  const out: string[] = [];
  const limit = columns - width(suffix);
  let rest = line;
  while (width(rest) > columns) {
    const space = breaks(rest).map((tier) => tier.filter((b) => b <= limit).pop()).find((b) => b !== undefined);
    const nextWord = space === undefined ? '' : rest.slice(space + 1).split(' ')[0] ?? '';
    const slash = splitWords ? rest.lastIndexOf('/', limit - 1) : -1;
    let cut: number;
    if (space !== undefined && (hang + width(nextWord) <= limit || slash <= space)) cut = space;
    else if (slash > indentOf(rest)) cut = slash + 1;
    else break; // nothing sensible to break at: leave it whole
    out.push(`${rest.slice(0, cut).trimEnd()}${suffix}`);
    rest = ' '.repeat(hang) + rest.slice(cut).trimStart();
  }
  out.push(rest);
  return out;
}

/** A shell line: a trailing comment moves above the command, which continues with a backslash. */
function foldCommand(line: string, columns: number): string[] {
  if (width(line) <= columns) return [line];
  const lead = ' '.repeat(indentOf(line));
  const comment = /^(.*?\S)\s{2,}(# .*)$/.exec(line);
  const above = comment ? [`${lead}${comment[2] as string}`] : [];
  return [...above, ...fold(comment ? (comment[1] as string) : line, columns, indentOf(line) + 4, shellBreaks, ' \\')];
}
