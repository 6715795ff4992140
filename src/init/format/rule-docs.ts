import type { RuleId } from '../rules.js';

// Where the linter's rules are explained, for SARIF's informationUri and helpUri: the README's
// "Lint rules" table, one anchor per rule id. The repository's public address is not settled
// yet; the README carries the same placeholder, and this is the one place the code names it
// (a test keeps the two equal, so replacing one without the other fails).
export const REPOSITORY_URL = 'https://REPOSITORY_URL';

/** The README section on `gsh init lint`. */
export const LINT_DOCS_URL = `${REPOSITORY_URL}#init-manifests-gsh-init-lint`;

export function ruleHelpUri(rule: RuleId): string {
  return `${REPOSITORY_URL}#rule-${rule}`;
}
