// Every rule the linter reports, with its severity. Errors are what the contract rejects (or what
// can never work, like an invalid cron); warnings are the contract's known limitations and checks
// a user would expect beyond its letter. SARIF output lists these as its rules.

export type Severity = 'error' | 'warning';

interface RuleInfo {
  readonly severity: Severity;
  readonly summary: string;
}

export const RULES = {
  // The file itself.
  'empty-file': { severity: 'error', summary: 'The file is empty.' },
  'binary-file': { severity: 'error', summary: 'The file is binary, not YAML text.' },
  'encoding': { severity: 'error', summary: 'The file is not valid UTF-8.' },
  'header': { severity: 'error', summary: 'The first line must be exactly `#service-init`.' },
  'document-size': { severity: 'error', summary: 'The document is larger than 48 KB (48,000 bytes).' },
  'too-deep': { severity: 'error', summary: 'The YAML nests deeper than a manifest ever needs (64 levels).' },
  'yaml-syntax': { severity: 'error', summary: 'The YAML does not parse.' },
  'yaml-warning': { severity: 'warning', summary: 'The YAML parses with a warning.' },
  'multiple-documents': { severity: 'error', summary: 'A manifest is one YAML document.' },
  'not-a-map': { severity: 'error', summary: 'The document must be a map of sections.' },
  'duplicate-key': { severity: 'error', summary: 'A key appears twice in the same map.' },
  // Shape.
  'unknown-key': { severity: 'error', summary: 'Unknown keys are rejected at every depth.' },
  'required': { severity: 'error', summary: 'A required key is missing.' },
  'type': { severity: 'error', summary: 'A value has the wrong type.' },
  'version': { severity: 'error', summary: '`version` must be the integer 1.' },
  'enum': { severity: 'error', summary: 'A value is not one of the allowed values.' },
  'range': { severity: 'error', summary: 'A number is outside its allowed range.' },
  'length': { severity: 'error', summary: 'A string is shorter or longer than allowed.' },
  'one-of': { severity: 'error', summary: 'Exactly one (or at least one) of a set of keys is required.' },
  'plan-cap': { severity: 'error', summary: 'A per-plan cap is exceeded at the chosen tier.' },
  // Values.
  'base64': { severity: 'error', summary: '`content_base64` is not valid base64.' },
  'checksum': { severity: 'error', summary: 'A checksum is not hex of the right length.' },
  'cron': { severity: 'error', summary: 'A cron expression is not 5 valid fields.' },
  'event-name': { severity: 'error', summary: 'An event is not one of the webhook event types.' },
  'url': { severity: 'error', summary: 'A URL is not an absolute http(s) URL.' },
  'hook-https': { severity: 'error', summary: 'Hook URLs must be https.' },
  'private-address': { severity: 'error', summary: 'Hook URLs must not point at a private or reserved address.' },
  'file-mode': { severity: 'error', summary: 'A file mode is not an octal string like `0644`.' },
  // Warnings.
  'redundant-key': { severity: 'warning', summary: 'Both of two alternative keys are given.' },
  'unquoted-version': { severity: 'warning', summary: 'A version is written as a number; YAML reads `1.20` as 1.2.' },
  'unknown-permission': { severity: 'warning', summary: 'A permission is not one the contract names.' },
  'env-name': { severity: 'warning', summary: 'An `env` key is not a portable variable name.' },
  'no-checksum': { severity: 'warning', summary: 'An asset has no checksum (recommended by the contract).' },
  'insecure-url': { severity: 'warning', summary: 'A download uses plain http.' },
  'duplicate-path': { severity: 'warning', summary: 'Two `files` entries write the same path.' },
  'duplicate-entry': { severity: 'warning', summary: 'A name, event, permission or download appears twice.' },
  'path-traversal': { severity: 'warning', summary: 'A file path contains a `..` segment.' },
  'email': { severity: 'warning', summary: 'An e-mail address does not look like one.' },
  'extract-path-ignored': { severity: 'warning', summary: '`extract_path` is set but `extract` is not true.' },
  'provider-skip': { severity: 'warning', summary: 'Known limitation: provider_a entries may be skipped in some configurations.' },
  'archives-skipped': { severity: 'warning', summary: 'Known limitation: extractable assets are skipped when direct plugin/mod downloads are present.' },
} as const satisfies Record<string, RuleInfo>;

export type RuleId = keyof typeof RULES;

export const RULE_IDS = Object.keys(RULES) as RuleId[];
