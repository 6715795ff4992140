import type { Family, Operation } from './types.js';

// Registry entries as command leaves: pure functions of the data, shared by the command builder,
// the planner and the docs.

export interface Leaf {
  op: Operation;
  /** The verbs-expanded value (`start` for `power start`). */
  verb?: string;
  words: string[];
}

/** Every leaf command of a family, with `verbs` expanded. */
export function leavesOf(family: Family): Leaf[] {
  return family.operations.flatMap((op) => {
    const words = op.command.split(' ');
    return op.verbs ? op.verbs.values.map((v) => ({ op, verb: v, words: [...words, v] })) : [{ op, words }];
  });
}

/** Placeholders of a path template: `{server_id}`, and `<game>` in `/<game>/status`. */
const PLACEHOLDER = /\{(\w+)\}|<(\w+)>/g;

export function pathParams(path: string): string[] {
  return [...path.matchAll(PLACEHOLDER)].map((m) => (m[1] ?? m[2]) as string);
}

/** A path template with each placeholder's value, encoded. */
export function fillTemplate(template: string, valueOf: (name: string) => string): string {
  return template.replace(PLACEHOLDER, (_m, a?: string, b?: string) => encodeURIComponent(valueOf((a ?? b) as string)));
}

export function needsServer(op: Operation): boolean {
  return op.path.includes('{server_id}');
}
