// Every rule the linter reports, with its severity. Errors are what the contract rejects (or what
// can never work, like an invalid cron); warnings are the contract's known limitations and checks
// a user would expect beyond its letter. SARIF output lists these as its rules.

export type Severity = 'error' | 'warning';

interface RuleInfo {
  readonly severity: Severity;
  readonly summary: string;
  /** How to fix it: SARIF's rule help and the README's "Lint rules" table. */
  readonly help: string;
}

export const RULES = {
  // The file itself.
  'empty-file': {
    severity: 'error', summary: 'The file is empty.',
    help: 'Start the file with the line `#service-init`, then `version: 1` and the sections you need.',
  },
  'binary-file': {
    severity: 'error', summary: 'The file is binary, not YAML text.',
    help: 'Lint the YAML manifest itself; a file with NUL bytes is not text and the service rejects it.',
  },
  'encoding': {
    severity: 'error', summary: 'The file is not valid UTF-8.',
    help: 'Save the file as UTF-8 (without a byte order mark); the message names the line and column of the first bad byte.',
  },
  'header': {
    severity: 'error', summary: 'The first line must be exactly `#service-init`.',
    help: 'Make the very first line `#service-init`: no space after `#`, no trailing space, no byte order mark before it.',
  },
  'document-size': {
    severity: 'error', summary: 'The document is larger than 48 KB (48,000 bytes).',
    help: 'Keep the whole file under 48,000 bytes: move large files to `assets` downloads instead of inline `content`.',
  },
  'too-deep': {
    severity: 'error', summary: 'The YAML nests deeper than a manifest ever needs (64 levels).',
    help: 'Flatten the structure; no manifest section nests more than a few levels.',
  },
  'yaml-syntax': {
    severity: 'error', summary: 'The YAML does not parse.',
    help: 'Fix the YAML at the position given (indentation, an unclosed quote or bracket, a tab used for indentation).',
  },
  'yaml-warning': {
    severity: 'warning', summary: 'The YAML parses with a warning.',
    help: 'Rewrite the construct the message names; the YAML parses, but perhaps not as you meant.',
  },
  'multiple-documents': {
    severity: 'error', summary: 'A manifest is one YAML document.',
    help: 'Remove the `---` separators: one file holds one manifest.',
  },
  'not-a-map': {
    severity: 'error', summary: 'The document must be a map of sections.',
    help: 'Write the manifest as `key: value` sections (`version: 1`, `files:`, ...), not a list or a single value.',
  },
  'duplicate-key': {
    severity: 'error', summary: 'A key appears twice in the same map.',
    help: 'Keep one of the two keys: YAML would otherwise silently keep only the last.',
  },
  // Shape.
  'unknown-key': {
    severity: 'error', summary: 'Unknown keys are rejected at every depth.',
    help: 'Remove the key or fix its spelling (the message suggests the closest known key); the service rejects unknown keys at every depth.',
  },
  'required': {
    severity: 'error', summary: 'A required key is missing.',
    help: 'Add the key the message names (`version: 1` at the top, `url` and `size` in an asset, ...).',
  },
  'type': {
    severity: 'error', summary: 'A value has the wrong type.',
    help: 'Give the value the type the message names: quote a string, write an integer without a decimal point, use a list where a list is expected.',
  },
  'version': {
    severity: 'error', summary: '`version` must be the integer 1.',
    help: 'Write `version: 1`, the integer (not `"1"`, `1.0` or `2`).',
  },
  'enum': {
    severity: 'error', summary: 'A value is not one of the allowed values.',
    help: 'Use one of the values the message lists (the closest is suggested).',
  },
  'range': {
    severity: 'error', summary: 'A number is outside its allowed range.',
    help: 'Bring the number or the count of entries inside the range the message gives.',
  },
  'length': {
    severity: 'error', summary: 'A string is shorter or longer than allowed.',
    help: 'Give a non-empty value (or one within the length the message gives).',
  },
  'one-of': {
    severity: 'error', summary: 'Exactly one (or at least one) of a set of keys is required.',
    help: 'Give exactly one of the alternatives the message names (for example `slug` or `id`).',
  },
  'plan-cap': {
    severity: 'error', summary: 'A per-plan cap is exceeded at the chosen tier.',
    help: 'Stay within the caps of the plan (`--tier free` or `--tier paid`): fewer entries or smaller downloads, or lint at the plan the server really has.',
  },
  // Values.
  'base64': {
    severity: 'error', summary: '`content_base64` is not valid base64.',
    help: 'Encode the content again with a standard base64 encoder (`base64 -w0 FILE`), or use `content` for text.',
  },
  'checksum': {
    severity: 'error', summary: 'A checksum is not hex of the right length.',
    help: 'Paste the full hex digest (sha1: 40, sha256: 64, sha512: 128 hex digits), as `sha256sum` prints it.',
  },
  'cron': {
    severity: 'error', summary: 'A cron expression is not 5 valid fields.',
    help: 'Write five fields (minute hour day-of-month month day-of-week), each a number in range, `*`, a list, a range or a step.',
  },
  'event-name': {
    severity: 'error', summary: 'An event is not one of the webhook event types.',
    help: 'Use one of the webhook event types (the closest is suggested), such as `server.started` or `backup.completed`.',
  },
  'url': {
    severity: 'error', summary: 'A URL is not an absolute http(s) URL.',
    help: 'Give an absolute `https://` URL with a host.',
  },
  'hook-https': {
    severity: 'error', summary: 'Hook URLs must be https.',
    help: 'Serve the hook receiver over https and use an `https://` URL.',
  },
  'private-address': {
    severity: 'error', summary: 'Hook URLs must not point at a private or reserved address.',
    help: 'Point hooks at a public host name: loopback, private and reserved addresses are refused by the service.',
  },
  'file-mode': {
    severity: 'error', summary: 'A file mode is not an octal string like `0644`.',
    help: "Quote the mode as an octal string: `mode: '0644'` (YAML reads an unquoted 0644 as a number).",
  },
  'unknown-permission': {
    severity: 'error', summary: 'A permission is not one the contract names.',
    help: 'Use a permission the contract names (the closest is suggested): the contract lists every permission, and the service refuses a manifest that grants another.',
  },

  // Warnings.
  'redundant-key': {
    severity: 'warning', summary: 'Both of two alternative keys are given.',
    help: 'Keep one of the two keys; the service uses one and ignores the other.',
  },
  'unquoted-version': {
    severity: 'warning', summary: 'A version is written as a number; YAML reads `1.20` as 1.2.',
    help: "Quote the version: `version: '1.20'` (YAML reads 1.20 as the number 1.2).",
  },
  'env-name': {
    severity: 'warning', summary: 'An `env` key is not a portable variable name.',
    help: 'Name variables with letters, digits and `_`, not starting with a digit, so every shell can read them.',
  },
  'no-checksum': {
    severity: 'warning', summary: 'An asset has no checksum (recommended by the contract).',
    help: 'Add `sha256` (or `sha512`) with the digest of the file so a changed download is caught.',
  },
  'insecure-url': {
    severity: 'warning', summary: 'A download uses plain http.',
    help: 'Download over https, and add a checksum.',
  },
  'duplicate-path': {
    severity: 'warning', summary: 'Two `files` entries write the same path.',
    help: 'Write each path once; the later entry would replace the earlier file.',
  },
  'duplicate-entry': {
    severity: 'warning', summary: 'A name, event, permission or download appears twice.',
    help: 'Remove the repeated name, event, permission or download.',
  },
  'path-traversal': {
    severity: 'warning', summary: 'A file path contains a `..` segment.',
    help: 'Give a path inside the server directory, without `..` segments.',
  },
  'email': {
    severity: 'warning', summary: 'An e-mail address does not look like one.',
    help: 'Check the address: it needs a local part, `@` and a domain.',
  },
  'extract-path-ignored': {
    severity: 'warning', summary: '`extract_path` is set but `extract` is not true.',
    help: 'Add `extract: true`, or remove `extract_path`.',
  },
  'provider-skip': {
    severity: 'warning', summary: 'Known limitation: provider_a entries may be skipped in some configurations.',
    help: 'Where the plugin must be installed, use `source: url` with a `sha512` checksum instead.',
  },
  'archives-skipped': {
    severity: 'warning', summary: 'Known limitation: extractable assets are skipped when direct plugin/mod downloads are present.',
    help: 'Split direct plugin or mod downloads and extractable archives into separate manifests, or extract the archives yourself.',
  },
} as const satisfies Record<string, RuleInfo>;

export type RuleId = keyof typeof RULES;

export const RULE_IDS = Object.keys(RULES) as RuleId[];
