import { flagName } from '../core/flags/values.js';
import { oneLine } from '../core/terminal/terminal-text.js';
import type { Field, Operation } from '../operations/types.js';

// The question a destructive operation asks (issue 50 item 9: as gh and kubectl ask, what will
// happen), derived from the registry: the verb is the command's last word, the thing acted on is
// named by the path's parameters ("backup B of database D"), or by the command's words where the
// path has none after the server; the server is named with its id; destructive body fields
// given say what they add, from their description. `Delete server lobby (srv_1)? This cannot
// be undone.`

export interface ActionServer {
  /** As typed, before it is resolved. */
  ref?: string;
  id?: string;
  name?: string;
}

/** `lobby (srv_1)`, or what is known of it; the name and id are the service's: shown through oneLine(). */
export function serverLabel(s: ActionServer): string {
  if (s.name && s.id && s.name !== s.id) return oneLine(`${s.name} (${s.id})`);
  return oneLine(s.id ?? s.ref ?? s.name ?? '');
}

function singular(word: string): string {
  if (/ies$/.test(word)) return word.replace(/ies$/, 'y');
  if (/(ss|us)$/.test(word)) return word;
  return word.replace(/s$/, '');
}

function spaced(word: string): string {
  return word.replace(/-/g, ' ');
}

/** The things the path names after the server: `[['database', 'D'], ['backup', 'B']]`. */
function pathThings(op: Operation, args: readonly string[]): [string, string][] {
  const segments = op.path.split('/').filter(Boolean);
  const things: [string, string][] = [];
  let noun = '';
  let arg = 0;
  for (const [i, seg] of segments.entries()) {
    if (!/^\{.+\}$/.test(seg)) {
      noun = seg;
      continue;
    }
    if (seg === '{server_id}') continue;
    const value = args[arg++] ?? seg;
    // {source}/{project_id}: one thing named by two values.
    if (/^\{.+\}$/.test(segments[i - 1] ?? '') && segments[i - 1] !== '{server_id}' && things.length) things[things.length - 1]![1] += `/${value}`;
    else things.push([spaced(singular(noun)), value]);
  }
  return things;
}

/**
 * What a destructive operation will do, without the question mark: `Delete backup B on server
 * lobby (srv_1)`, `Reinstall server lobby (srv_1) with --wipe (delete the server files first)`,
 * `Delete 3 servers: a (srv_1), …` (`servers`, a fleet's targets, each labelled).
 */
export function describeAction(op: Operation, words: readonly string[], args: readonly string[], opts: { server?: ActionServer; servers?: readonly string[]; destructiveFields?: readonly Field[]; flagOf?: (f: Field) => string } = {}): string {
  const verbWord = words.at(-1) ?? '';
  const verb = op.method === 'DELETE' ? 'Delete' : `${spaced(verbWord).charAt(0).toUpperCase()}${spaced(verbWord).slice(1)}`;
  const onServer = op.path.startsWith('/servers/{server_id}');
  const things = pathThings(op, args);
  const selfIsServer = onServer && !things.length && (op.path === '/servers/{server_id}' || op.path === `/servers/{server_id}/${verbWord}`);
  let thing: string;
  if (things.length) thing = things.reverse().map(([noun, value]) => `${noun} ${value}`).join(' of ');
  else if (selfIsServer) thing = '';
  else thing = words.slice(0, -1).map(spaced).join(' ');
  let where = '';
  const servers = opts.servers?.map(oneLine);
  if (servers) where = selfIsServer ? `${servers.length} servers: ${servers.join(', ')}` : ` on ${servers.length} servers: ${servers.join(', ')}`;
  else if (onServer && opts.server) where = selfIsServer ? `server ${serverLabel(opts.server)}` : ` on server ${serverLabel(opts.server)}`;
  const fields = (opts.destructiveFields ?? []).map((f) => {
    const what = (f.description ?? '').replace(/\s*\(asks for confirmation\)/i, '');
    return `--${opts.flagOf?.(f) ?? f.name}${what ? ` (${what.charAt(0).toLowerCase()}${what.slice(1)})` : ''}`;
  });
  return `${verb} ${thing}${where}${fields.length ? ` with ${fields.join(' ')}` : ''}`.replace(/\s+/g, ' ').trim();
}

/**
 * What a run of `op` with `body` will do when it is destructive (the operation, or a destructive
 * body field given: `--wipe`), else undefined: nothing to ask.
 */
export function destructiveAction(op: Operation, words: readonly string[], args: readonly string[], body: unknown, where: { server?: ActionServer; servers?: readonly string[] }): string | undefined {
  const given = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const destructiveFields = (op.body ?? []).filter((f) => f.destructive && given[f.name] === true);
  if (!op.destructive && !destructiveFields.length) return undefined;
  return describeAction(op, words, args, { ...where, destructiveFields, flagOf: flagName });
}

/** The question itself: what will happen, and that it cannot be undone. */
export function confirmQuestion(action: string): string {
  return `${action}? This cannot be undone.`;
}
