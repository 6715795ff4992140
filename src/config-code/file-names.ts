import { distinctNames, safeFileName } from '../common/file-names.js';
import type { Target } from '../core/fleet/targets.js';

// The files `gsh config export` writes, named for every server of the run at once, before
// anything is read or written (README "Configuration as code", "One server, one file"): the
// server's name made a safe file name (common/file-names.ts); where two servers would share one
// (the same name, or names alike but for case or the characters replaced), each is written as
// NAME--ID.yaml instead, pinned to its server with `id:`, so apply never takes one server's file
// for another's.

export interface ExportFile {
  /** The file name in DIR, or undefined when the server is refused. */
  file?: string;
  /** The file names the server by id as well (`id:`): its name is not its alone. */
  pinned: boolean;
  /** Why the server is not exported. */
  refused?: string;
}

export function exportFiles(targets: readonly Target[]): Map<string, ExportFile> {
  const plain = (t: Target) => (t.name === undefined ? undefined : safeFileName(t.name));
  const names = distinctNames(targets, (t) => (plain(t) === undefined ? undefined : `${plain(t)}.yaml`), (t) => {
    const id = safeFileName(t.id);
    if (id === undefined) return undefined;
    return plain(t) === undefined ? `${id}.yaml` : `${plain(t)}--${id}.yaml`;
  });
  return new Map(targets.map((t): [string, ExportFile] => {
    const file = names.get(t.id);
    if (file === undefined) return [t.id, { pinned: true, refused: 'its name and id give no file name of its own; export it alone with -s id:ID' }];
    return [t.id, { file, pinned: file !== `${plain(t)}.yaml` }];
  }));
}

/** A name as the header comment of its file shows it: control characters written as \uXXXX, so the comment stays one line of text. */
export function printableName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
