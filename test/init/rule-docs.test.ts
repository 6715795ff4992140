import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LINT_DOCS_URL, REPOSITORY_URL, ruleHelpUri } from '../../src/init/format/rule-docs.js';
import { RULE_IDS, RULES } from '../../src/init/rules.js';

// Issue 15 item 2: SARIF's helpUri points at an anchor that explains the rule. The README's "Lint
// rules" table is that place: one row per rule, anchored `rule-<id>`, saying what the rule means
// and how to fix it in the words SARIF carries.

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const headingAnchor = (heading: string): string => heading.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');

describe('lint rule documentation', () => {
  it('has a README row per rule, anchored where its helpUri points, with its summary and help', () => {
    const rows = README.split('\n').filter((line) => line.startsWith('| <a id="rule-'));
    expect(rows.map((row) => /id="rule-([a-z0-9-]+)"/.exec(row)?.[1])).toEqual(RULE_IDS);
    for (const id of RULE_IDS) {
      expect(ruleHelpUri(id)).toBe(`${REPOSITORY_URL}#rule-${id}`);
      const row = rows.find((r) => r.includes(`id="rule-${id}"`));
      expect(row).toBe(`| <a id="rule-${id}"></a>\`${id}\` | ${RULES[id].severity} | ${RULES[id].summary} ${RULES[id].help} |`);
    }
  });

  it('links into the README the package documents, at a heading that exists', () => {
    // The repository's public address is a placeholder until it is settled; code and README agree.
    expect(README).toContain(`git+${REPOSITORY_URL}.git`);
    const anchor = LINT_DOCS_URL.slice(`${REPOSITORY_URL}#`.length);
    const headings = README.split('\n').filter((l) => /^#{2,3} /.test(l)).map((l) => headingAnchor(l.replace(/^#+ /, '')));
    expect(headings).toContain(anchor);
    expect(headings).toContain('lint-rules');
  });
});
