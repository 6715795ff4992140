// Live state against a declaration (README "Configuration as code"): each declared kind compares
// its own section (kinds/), only declared fields, values normalised; write-only fields are listed
// as not compared. The result is the exact list of writes `apply` makes, each the request of one
// registry operation.

import type { Declaration } from './files.js';
import type { Change } from './kind.js';
import { kindNamed } from './kinds/index.js';

export type { Change, FieldDiff } from './kind.js';
export { asText } from './kind.js';

/** What was read of one server, by kind: only the kinds its declaration manages. */
export type Live = Record<string, unknown>;

export interface Comparison {
  changes: Change[];
  /** Paths of declared values that are never compared (write-only). */
  notCompared: string[];
}

export interface CompareOptions {
  serverId: string;
  kinds: readonly string[];
  /** --prune: the kinds whose unlisted items are deleted (when the file marks prune: true). */
  prune: readonly string[];
  /** --replace: identities to delete and create again (a webhook's URL). */
  replace: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Resolve ${env:…} secrets (apply, dry run); diff only lists them. */
  secrets: boolean;
}

/** Whether `path` is one of the ignored paths or lies under one (`KIND.field` covers every item's field). */
export function ignored(path: string, ignore: readonly string[] | undefined): boolean {
  if (!ignore?.length) return false;
  const loose = path.replace(/\[[^\]]*\]/g, '');
  return ignore.some((p) => [path, loose].some((q) => q === p || q.startsWith(`${p}.`) || q.startsWith(`${p}[`)));
}

export function compare(d: Declaration, live: Live, o: CompareOptions): Comparison {
  const changes: Change[] = [];
  const notCompared: string[] = [];
  const skip = (path: string) => ignored(path, d.ignore);
  for (const name of o.kinds) {
    const kind = kindNamed(name);
    const declared = d.sections[name];
    if (!kind || declared === undefined) continue;
    const r = kind.compare(declared, live[name], { serverId: o.serverId, prune: o.prune.includes(name), replace: o.replace, env: o.env, secrets: o.secrets, skip });
    // `after` indexes the server's whole list.
    const offset = changes.length;
    changes.push(...r.changes.map((c) => (c.after === undefined ? c : { ...c, after: c.after + offset })));
    notCompared.push(...r.notCompared);
  }
  return { changes, notCompared };
}

/** What the service says it stored, from a write's answer, by declared path; undefined when it does not show it. */
export function storedValues(ch: Change, data: unknown): Map<string, string> | undefined {
  return kindNamed(ch.kind)?.stored?.(ch, data);
}
