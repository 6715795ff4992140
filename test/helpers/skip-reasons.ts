import type { Reporter, TestCase, TestModule } from 'vitest/node';

// The reasons of skipped tests, printed at the end of a run (README "Development": tests that
// need a tool this machine lacks report themselves skipped with the reason). vitest's own summary
// only counts skips; this reporter, after it in vitest.config.ts, lists each skipped test with
// its project, file and why. A test says why in its title or its describe's (`(skipped: zsh not
// installed)`, test/helpers/tools.ts `needing`/`skipTitle`) or in the note of `ctx.skip(note)`;
// test/unit/skip-reasons.test.ts checks that every skipIf in test/ gives one.

export interface Skipped {
  project: string;
  file: string;
  name: string;
  reason: string;
}

/**
 * Why a test was skipped: its note, else the `(skipped: …)` its title or a describe's title
 * carries; undefined when it gives none (left out by a -t filter, or by .only elsewhere).
 */
export function skipReason(fullName: string, note: string | undefined, mode?: string): string | undefined {
  if (note) return note;
  const m = /\(skipped: ([^)]*)\)/.exec(fullName);
  if (m) return m[1] as string;
  if (mode === 'todo') return 'marked todo';
  return undefined;
}

/** The lines printed for the skipped tests (nothing when none was skipped); `filtered` counts those without a reason. */
export function skipLines(skipped: readonly Skipped[], filtered = 0): string {
  if (skipped.length === 0 && filtered === 0) return '';
  const lines = skipped.map((s) => `  [${s.project}] ${s.file} > ${s.name.replace(/ \(skipped: [^)]*\)/g, '')}\n      why: ${s.reason}`);
  const rest = filtered ? `${skipped.length ? 'and ' : ''}${filtered} not run with no reason of their own (a -t filter, .only elsewhere, or a failed setup of their suite)\n` : '';
  return `\nSkipped tests (${skipped.length + filtered})${skipped.length ? ', each with its reason:' : ':'}\n${lines.map((l) => `${l}\n`).join('')}${rest ? `  ${rest}` : ''}`;
}

export default class SkipReasons implements Reporter {
  private root = process.cwd();

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped: Skipped[] = [];
    let filtered = 0;
    for (const mod of modules) {
      for (const test of mod.children.allTests() as Iterable<TestCase>) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        const file = mod.moduleId.startsWith(`${this.root}/`) ? mod.moduleId.slice(this.root.length + 1) : mod.moduleId;
        const reason = skipReason(test.fullName, result.note, test.options.mode);
        if (reason === undefined) filtered++;
        else skipped.push({ project: test.project.name, file, name: test.fullName, reason });
      }
    }
    const text = skipLines(skipped, filtered);
    if (text) process.stdout.write(text);
  }
}
