// A secret the user gives, or the service generates, is never printed back (issue 50 item 3;
// ARCHITECTURE.md "Doors": the person): answer fields the registry declares secret (a field with
// `secret: true`, e.g. the webhook `secret` that `hooks create` answers with) show `[set]` when
// the user gave the value and `[hidden]` when the service made it, and a manifest's hook
// `secret:` lines (init templates, config) show `[hidden]`, in every format and before --jq sees
// the data. `--show-secret` shows them as they came.

export const SET = '[set]';
export const HIDDEN = '[hidden]';

/** Each secret answer field by name: `[set]` (the user gave it) or `[hidden]`. */
export type SecretFields = ReadonlyMap<string, typeof SET | typeof HIDDEN>;

/** Keys whose string values are manifest text (YAML or JSON), whose hooks' secrets are hidden. */
const MANIFEST_KEYS = new Set(['manifest', 'init']);

/** `secret: value` (YAML, also `- secret: value`) and `"secret": "value"` (JSON) in a manifest's text. */
const YAML_SECRET = /^(\s*(?:-\s+)?["']?secret["']?\s*:[ \t]*)(?![ \t]*$)(?!\[hidden\])(.+?)([ \t]*(?:#.*)?)$/gm;
const JSON_SECRET = /("secret"\s*:\s*)"(?:[^"\\]|\\.)*"/g;

/** A manifest's text with the value of every `secret` key shown as `[hidden]`. */
export function hideManifestSecrets(text: string): string {
  return text.replace(JSON_SECRET, `$1"${HIDDEN}"`).replace(YAML_SECRET, (_m, head: string, _value: string, tail: string) => `${head}${HIDDEN}${tail}`);
}

/**
 * `data` with its secrets shown as `[set]`/`[hidden]` (see above), at any depth. `data` itself
 * is left as it is; what holds no secret is returned as it was, not copied (a long list costs a
 * walk, not a second list).
 */
export function hideSecrets(data: unknown, fields: SecretFields = new Map(), key?: string): unknown {
  if (typeof data === 'string') return key !== undefined && MANIFEST_KEYS.has(key) ? hideManifestSecrets(data) : data;
  if (data === null || typeof data !== 'object') return data;
  if (Array.isArray(data)) {
    let out: unknown[] | undefined;
    data.forEach((v, i) => {
      const shown = hideSecrets(v, fields, key);
      if (shown !== v) (out ??= [...data])[i] = shown;
    });
    return out ?? data;
  }
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(data)) {
    const hidden = fields.get(k);
    const shown = hidden !== undefined && v !== null && v !== undefined && v !== '' ? hidden : hideSecrets(v, fields, k);
    if (shown !== v) (out ??= { ...(data as Record<string, unknown>) })[k] = shown;
  }
  return out ?? data;
}
