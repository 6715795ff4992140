import type { RuleId } from '../rules.js';

// Where reports send a reader for a rule: text that ships with gsh, never a web address (there is
// no public home yet). SARIF carries each rule's help inline; the other reports name the command
// that prints it.

/** The command that explains `rule` (every rule without one). */
export function ruleHelpCommand(rule?: RuleId): string {
  return rule ? `gsh init rules ${rule}` : 'gsh init rules';
}
