// File names made from server names (README "Configuration as code", "File transfers"): `gsh
// config export` writes DIR/<name>.yaml and `files get` from several servers DIR/<name>/. A name
// is the service's text, so it is made a safe file name by one rule, and the names of one run are
// given out all at once, before anything is written, so no two servers share one.

/** Bytes a file name made here may take (most file systems allow 255; room for an extension and a suffix). */
const MAX_BYTES = 200;

/**
 * A server name as one safe file name, or undefined when nothing of it is left: every control
 * character (C0, DEL, C1), bidirectional override, path separator and character Windows refuses
 * (`<>:"|?*`) becomes `_`, as do a leading dot (a hidden file the reader would skip) and trailing
 * dots and spaces (so `.` and `..` become `_` and `__`). An empty name, or one over 200 bytes, is
 * none.
 */
export function safeFileName(name: string): string | undefined {
  const safe = name
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069/\\<>:"|?*]/g, '_')
    .replace(/^\./, '_')
    .replace(/[. ]+$/, (m) => '_'.repeat(m.length));
  return safe === '' || new TextEncoder().encode(safe).length > MAX_BYTES ? undefined : safe;
}

/**
 * File names for every item at once, none shared (compared as a case-insensitive file system
 * would: macOS, Windows): each item's `preferred` name, and where two would share one, each of
 * them its `fallback` (made from its id, which is unique); a fallback that still meets another is
 * given to neither (undefined: the caller refuses them both). Stable: an item's name depends on
 * the items of the run, never on their order.
 */
export function distinctNames<T extends { id: string }>(items: readonly T[], preferred: (t: T) => string | undefined, fallback: (t: T) => string | undefined): Map<string, string | undefined> {
  const chosen = new Map<string, string | undefined>(items.map((t) => [t.id, preferred(t) ?? fallback(t)]));
  const fellBack = new Set(items.filter((t) => preferred(t) === undefined).map((t) => t.id));
  for (;;) {
    const byKey = new Map<string, string[]>();
    for (const [id, name] of chosen) if (name !== undefined) byKey.set(fold(name), [...(byKey.get(fold(name)) ?? []), id]);
    const shared = [...byKey.values()].filter((ids) => ids.length > 1);
    if (!shared.length) return chosen;
    for (const ids of shared) {
      const named = ids.filter((id) => !fellBack.has(id));
      // Only fallbacks meet: none of them gets the name.
      if (!named.length) for (const id of ids) chosen.set(id, undefined);
      for (const id of named) {
        fellBack.add(id);
        chosen.set(id, fallback(items.find((t) => t.id === id)!));
      }
    }
  }
}

/** A name as a case-insensitive file system compares it. */
const fold = (name: string) => name.normalize('NFC').toLowerCase();
