import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RULE_IDS, RULES } from '../../src/init/rules.js';
import { runGsh } from '../helpers/context.js';

// Issue 15 item 2, then issue 27: reports point at text that ships with gsh, never at a web
// address (there is no public home yet): SARIF carries each rule's help inline, `gsh init rules`
// prints it, and the README's "Lint rules" table has a row per rule in the same words.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('lint rule documentation', () => {
  it('has a README row per rule with its summary and help', () => {
    const rows = README.split('\n').filter((line) => line.startsWith('| <a id="rule-'));
    expect(rows.map((row) => /id="rule-([a-z0-9-]+)"/.exec(row)?.[1])).toEqual(RULE_IDS);
    for (const id of RULE_IDS) {
      const row = rows.find((r) => r.includes(`id="rule-${id}"`));
      expect(row).toBe(`| <a id="rule-${id}"></a>\`${id}\` | ${RULES[id].severity} | ${RULES[id].summary} ${RULES[id].help} |`);
    }
  });

  it('gsh init rules prints every rule (or those named) with its severity, summary and help; an unknown id is a usage error', async () => {
    const all = await runGsh(['init', 'rules']);
    expect(all.exitCode, all.stderr).toBe(0);
    for (const id of RULE_IDS) expect(all.stdout).toContain(`${id} (${RULES[id].severity})\n  ${RULES[id].summary}\n  ${RULES[id].help}\n`);
    const one = await runGsh(['init', 'rules', 'hook-https']);
    expect(one.stdout).toBe(`hook-https (error)\n  ${RULES['hook-https'].summary}\n  ${RULES['hook-https'].help}\n\n`);
    const bad = await runGsh(['init', 'rules', 'nope']);
    expect(bad.exitCode).toBe(2);
  });

  it('no placeholder address anywhere in the README or the sources', () => {
    const placeholder = ['REPOSITORY', 'URL'].join('_');
    expect(README).not.toContain(placeholder);
    for (const file of filesUnder(join(ROOT, 'src'))) expect(readFileSync(file, 'utf8'), file).not.toContain(placeholder);
  });
});
