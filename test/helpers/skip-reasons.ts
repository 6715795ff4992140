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

/** Why a test was skipped: its note, else the `(skipped: …)` its title or a describe's title carries. */
export function skipReason(fullName: string, note: string | undefined, mode?: string): string {
  if (note) return note;
  const m = /\(skipped: ([^)]*)\)/.exec(fullName);
  if (m) return m[1] as string;
  if (mode === 'todo') return 'marked todo';
  return 'no reason given';
}

/** The lines printed for `skipped` (nothing when none was skipped). */
export function skipLines(skipped: readonly Skipped[]): string {
  if (skipped.length === 0) return '';
  const lines = skipped.map((s) => `  [${s.project}] ${s.file} > ${s.name.replace(/ \(skipped: [^)]*\)/g, '')}\n      why: ${s.reason}`);
  return `\nSkipped tests (${skipped.length}), each with its reason:\n${lines.join('\n')}\n`;
}

export default class SkipReasons implements Reporter {
  private root = process.cwd();

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped: Skipped[] = [];
    for (const mod of modules) {
      for (const test of mod.children.allTests() as Iterable<TestCase>) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        const file = mod.moduleId.startsWith(`${this.root}/`) ? mod.moduleId.slice(this.root.length + 1) : mod.moduleId;
        skipped.push({ project: test.project.name, file, name: test.fullName, reason: skipReason(test.fullName, result.note, test.options.mode) });
      }
    }
    const text = skipLines(skipped);
    if (text) process.stdout.write(text);
  }
}
