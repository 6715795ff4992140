import { similar } from '../../common/suggest.js';
import { UsageError } from '../errors.js';

// A flag that takes a comma list of known words (`--only settings,hooks`, `--prune hooks`):
// one parser, checked while planning, each unknown word named with its nearest known one.

/** `; did you mean "x"?` or nothing. */
export function didYouMeanText(word: string, candidates: readonly string[]): string {
  const [best] = similar(word, candidates);
  return best === undefined ? '' : `; did you mean "${best}"?`;
}

/** The words of `value`, each one of `allowed`; undefined when the flag is not given. */
export function choiceList(value: string | undefined, flag: string, allowed: readonly string[], what = 'words'): string[] | undefined {
  if (value === undefined) return undefined;
  const list = [...new Set(value.split(',').map((v) => v.trim()).filter(Boolean))];
  if (!list.length) throw new UsageError(`${flag} needs one or more of ${allowed.join(', ')}`);
  for (const word of list) {
    if (!allowed.includes(word)) throw new UsageError(`${flag}: unknown ${what.replace(/s$/, '')} "${word}"${didYouMeanText(word, allowed)}`, `${what[0]!.toUpperCase()}${what.slice(1)}: ${allowed.join(', ')}.`);
  }
  return list;
}
