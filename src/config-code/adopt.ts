// `gsh config adopt` (README "Configuration as code": adopt): the live values of the declared
// keys that drifted are written into the declaration files, as `terraform import` and `ugs fetch`
// take a live change in instead of reverting it, so that `diff` is 0 for them afterwards. Only
// reads are sent. Each value goes where the merge took it from (files.ts provenanceFor): the most
// specific fleet entry that declared it, and only when every server taking it from that entry
// would then be in sync. The files are edited in place (adopt-yaml.ts), atomically, through
// write-file.ts.

import { realpathSync, statSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { Exit, InterruptedError, UsageError } from '../core/errors.js';
import { parallelOption } from '../core/fleet/fleet.js';
import { isSecretKey } from '../core/redact.js';
import type { Runtime } from '../core/run/runtime.js';
import { errorObject } from '../core/terminal/report.js';
import { formatPath, type PathSegment } from '../init/field-path.js';
import { editYaml, type YamlEdit } from './adopt-yaml.js';
import { asText, type Change, type FieldDiff } from './compare.js';
import { type DeclFile, type Provenance, provenanceFor } from './files.js';
import { readDeclaration } from './input-limits.js';
import { ENV_REF, type Kind } from './kind.js';
import { kindNamed } from './kinds/index.js';
import { type Compared, compareAll, loadDeclarations, type Managed, managedServers, narrow, onlyKinds, readsOf, type SelectOptions } from './run.js';
import { writeDeclaration } from './write-file.js';
import { step } from '../core/plan.js';

/** Why a drifted key is left as it is (a script may act on the code). */
export type LeftCode = 'shared_entry' | 'secret' | 'env_reference' | 'not_declared_item' | 'not_live' | 'kind_cannot_adopt' | 'not_adoptable' | 'layout' | 'not_read';

interface Row {
  status: 'written' | 'left';
  file: string | null;
  /** The key as diff names it: `properties.max-players`. */
  key: string | null;
  /** Where in the file: `servers.lobby-*.properties.max-players`. */
  at: string | null;
  old?: unknown;
  new?: unknown;
  servers: string[];
  code?: LeftCode;
  reason?: string;
}

/** One value to write: a place in a file, and every server whose drift it takes in. */
interface Pending {
  file: DeclFile;
  path: PathSegment[];
  key: string;
  kind: Kind;
  /** The path in the kind's section (the same for every server taking it from this entry). */
  at: PathSegment[];
  old: unknown;
  values: Array<{ server: Managed; value: unknown }>;
}

const label = (s: { id: string; name?: string; account?: true }) => (s.account ? 'account' : (s.name ?? s.id));
const show = (v: unknown) => (Array.isArray(v) ? `[${v.map(asText).join(', ')}]` : asText(v));

export async function runAdopt(rt: Runtime, o: SelectOptions): Promise<number> {
  const files = await loadDeclarations(rt, o.paths);
  const parallel = parallelOption(o.parallel);
  onlyKinds(o.only);
  const keep = narrow(o.server);
  // Files are the user's: without a terminal to ask on, --yes says so before anything is read.
  if (!rt.dryRun && !rt.globals.yes && !rt.interactive) throw new UsageError('config adopt rewrites the declaration files: refusing without --yes when not interactive; nothing was read', 'Re-run with --yes to confirm, or with --dry-run to see what it would write.');
  const client = await rt.client();
  // Every server the files manage: a shared entry changes only when all of them agree.
  const { managed: all, missing } = await managedServers(client, files, { ...o, server: undefined });
  const selected = keep ? all.filter(keep) : all;
  if (keep && !selected.length) throw new UsageError('-s matches none of the servers the files manage');
  const fileOf = new Map(files.map((f) => [f.path, f]));
  const provenance = new Map<Managed, Provenance>();
  const originOf = (m: Managed) => provenance.get(m) ?? provenance.set(m, provenanceFor(fileOf.get(m.file)!, m)).get(m)!;

  const compared = await compareAll(rt, client, selected, parallel, { prune: [], replace: [], secrets: false });
  const rows: Row[] = [];
  const pending = new Map<string, Pending>();
  collect(compared, rows, pending, originOf, fileOf, true);

  // The servers outside -s that take a value from an entry to be changed: read, to know whether they agree.
  const others = all.filter((m) => !selected.includes(m) && [...pending.values()].some((p) => sharesEntry(m, p, originOf)));
  const seen = others.length ? await compareAll(rt, client, others, parallel, { prune: [], replace: [], secrets: false }) : [];
  const witnesses = new Map<string, Pending>();
  collect(seen, [], witnesses, originOf, fileOf, false);
  const cut = [...compared, ...seen].find((c) => c.interrupted instanceof InterruptedError)?.interrupted;
  if (cut instanceof InterruptedError) throw cut;

  const writes = new Map<DeclFile, Pending[]>();
  for (const [id, p] of pending) {
    const disagree = disagreement(p, witnesses.get(id), [...compared, ...seen], all, originOf);
    if (disagree) {
      rows.push({ status: 'left', file: p.file.path, key: p.key, at: formatPath(p.path), old: p.old, new: p.values[0]!.value, servers: p.values.map((v) => label(v.server)), code: 'shared_entry', reason: disagree });
      continue;
    }
    writes.set(p.file, [...(writes.get(p.file) ?? []), p]);
  }
  for (const c of [...compared, ...seen].filter((x) => x.error)) {
    rows.push({ status: 'left', file: c.server.file, key: null, at: null, servers: [label(c.server)], code: 'not_read', reason: `could not be read and compared, so nothing was taken from it: ${errorObject(c.error).message}` });
  }
  for (const m of missing.filter((x) => !keep || keep({ id: x.ref, name: x.ref }))) rows.push({ status: 'left', file: m.file, key: null, at: null, servers: [m.ref], code: 'not_read', reason: `no server is named ${m.ref}` });

  // Every file's new text is made (and read back) before any is written.
  const texts = new Map<DeclFile, string>();
  for (const [file, list] of writes) {
    const edited = editYaml(readDeclaration(file.path), list.map((p): YamlEdit => ({ path: p.path, old: p.old, value: p.values[0]!.value })));
    if ('problem' in edited) {
      for (const p of list) rows.push({ status: 'left', file: file.path, key: p.key, at: formatPath(p.path), old: p.old, new: p.values[0]!.value, servers: p.values.map((v) => label(v.server)), code: 'layout', reason: `${file.path} cannot be edited in place: ${edited.problem}; change it by hand` });
      writes.delete(file);
    } else texts.set(file, edited.text);
  }
  const planned = [...writes].flatMap(([file, list]) => list.map((p): Row => ({ status: 'written', file: file.path, key: p.key, at: formatPath(p.path), old: p.old, new: p.values[0]!.value, servers: p.values.map((v) => label(v.server)) })));

  if (planned.length && !rt.dryRun && !rt.globals.yes) {
    for (const r of planned) rt.note(`${r.file}: ${r.at}: ${show(r.old)} -> ${show(r.new)}`);
    const { confirmDestructive } = await import('../core/run/confirm.js');
    await confirmDestructive(rt, `Write ${planned.length} live value${planned.length === 1 ? '' : 's'} into ${texts.size} file${texts.size === 1 ? '' : 's'} (${[...texts.keys()].map((f) => f.path).join(', ')})?`);
  }
  const left = rows.length;
  const summary = `${planned.length} value${planned.length === 1 ? '' : 's'} ${rt.dryRun ? 'would be written' : 'written'} into ${texts.size} file${texts.size === 1 ? '' : 's'}${left ? `; ${left} left as ${left === 1 ? 'it is' : 'they are'} (see reason)` : ''}.`;
  const nothing = `Nothing to adopt: ${selected.length} server${selected.length === 1 ? ' is' : 's are'} as declared.`;
  if (rt.dryRun) {
    // The plan: no request, the file writes it would make, and the reads that found them.
    for (const m of selected.filter((x) => !x.account)) rt.references.push({ ref: label(m), is: m.name ? 'name' : 'id', servers: [{ id: m.id, ...(m.name ? { name: m.name } : {}) }] });
    for (const r of rows) rt.warn(`left: ${r.key ?? r.servers.join(', ')}: ${r.reason}`);
    // The listing is read when a server file is given (managedServers).
    const listed = files.some((f) => !f.account);
    const reads = (listed ? 1 : 0) + readsOf([...compared, ...seen].map((c) => c.server));
    await rt.submit({
      requests: [],
      then: planned.map((r) => step('local', `write ${r.file}: ${r.at}: ${show(r.old)} -> ${show(r.new)} (${r.servers.join(', ')})`)),
      sent: { requests: reads, description: `the ${reads} reads that found the differences (${listed ? 'the server listing and ' : ''}the declared kinds)` },
    }, async () => {});
    rt.note(planned.length || left ? `${summary} Nothing was written (--dry-run).` : nothing);
    return left ? Exit.someFailed : Exit.ok;
  }
  for (const [file, text] of texts) {
    // A link is followed: the file it names is the one replaced, and keeps its mode.
    const target = realpathSync(file.path);
    writeDeclaration(target, text, true, statSync(target).mode & 0o777);
  }
  const shown = [...planned, ...rows];
  const table = rt.format === 'table';
  await rt.out.show(table ? shown.map((r) => ({ ...r, old: r.old === undefined ? '-' : show(r.old), new: r.new === undefined ? '-' : show(r.new), servers: r.servers.join(','), reason: r.reason ?? '' })) : shown, { columns: ['status', 'file', 'at', 'old', 'new', 'servers', 'reason'] });
  rt.note(shown.length ? summary : nothing);
  return left ? Exit.someFailed : Exit.ok;
}

/**
 * Each drifted field of the compared servers: a value to write where the file declared it
 * (`pending`, keyed by file and place), or a row saying why it is left.
 */
function collect(compared: Compared[], rows: Row[], pending: Map<string, Pending>, originOf: (m: Managed) => Provenance, fileOf: Map<string, DeclFile>, report: boolean): void {
  const leave = (c: Compared, key: string, code: LeftCode, reason: string) => {
    if (report) rows.push({ status: 'left', file: c.server.file, key, at: null, servers: [label(c.server)], code, reason });
  };
  for (const c of compared) {
    for (const ch of c.comparison?.changes ?? []) {
      for (const f of ch.fields) {
        const kind = kindNamed(ch.kind)!;
        const place = placeOf(kind, ch, f, originOf(c.server));
        if ('code' in place) {
          leave(c, f.path, place.code, place.reason);
          continue;
        }
        const { from, at, old, value } = place;
        const path = [...from, kind.name, ...at];
        const id = JSON.stringify([c.server.file, path]);
        const p = pending.get(id) ?? { file: fileOf.get(c.server.file)!, path, key: f.path, kind, at, old, values: [] };
        p.values.push({ server: c.server, value });
        pending.set(id, p);
      }
    }
  }
}

/**
 * Where one drifted field goes in its file, and what is written there: `from` is the entry the
 * merge took it from, `at` its path in the kind's section; or why it is left.
 */
export function placeOf(kind: Kind, ch: Change, f: FieldDiff, prov: Provenance): { from: PathSegment[]; at: PathSegment[]; old: unknown; value: unknown } | { code: LeftCode; reason: string } {
  const left = leftBecause(ch, f);
  if (left) return left;
  const raw = prov.raw[kind.name];
  // A kind that cannot map a live value back to its declared form is named, never guessed at.
  const adopted = kind.adopt?.(f, raw) ?? { refused: `gsh config adopt cannot take ${kind.name} into a file yet` };
  if ('refused' in adopted) return { code: kind.adopt ? 'not_adoptable' : 'kind_cannot_adopt', reason: adopted.refused };
  const old = valueAt(raw, adopted.at);
  const ref = typeof old === 'string' ? ENV_REF.exec(old)?.[1] : undefined;
  if (ref !== undefined) return { code: 'env_reference', reason: `${f.path} is declared as \${env:${ref}}: the file names a variable, not a value, so it is left; set ${ref} or change the file by hand` };
  const last = String(adopted.at.at(-1) ?? '');
  if (kind.writeOnly.includes(last) || isSecretKey(last) || isSecretKey(last.split('.').at(-1) ?? '')) {
    return { code: 'secret', reason: `${f.path} looks like a secret: gsh never writes a live secret into a file (declare it as your secrets are kept, or add it to ignore:)` };
  }
  const from = prov.origin([kind.name, ...adopted.at]);
  if (!from) return { code: 'not_adoptable', reason: `${f.path}: no entry of the file declares it` };
  return { from, at: adopted.at, old, value: adopted.value };
}

/** A drifted field no file edit can take in, whatever the kind. */
function leftBecause(ch: Change, f: FieldDiff): { code: LeftCode; reason: string } | undefined {
  if (ch.action === 'delete') return { code: 'not_declared_item', reason: `${ch.item} is on the server but not in the file: adopt takes in only what the files declare (gsh config export writes what a server has)` };
  if (ch.action === 'create' || ch.action === 'replace') return { code: 'not_live', reason: `${ch.item} is declared but not on the server: adopt never removes a declaration` };
  if (f.live === '(write-only)') return { code: 'secret', reason: `${f.path} is write-only: the service never shows it` };
  return undefined;
}

function valueAt(raw: unknown, at: readonly PathSegment[]): unknown {
  let v = raw;
  for (const seg of at) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[seg as string] : undefined;
  return v;
}

/** Whether `m` takes the value at `p`'s place from `p`'s entry (another server in the same fleet file). */
function sharesEntry(m: Managed, p: Pending, originOf: (m: Managed) => Provenance): boolean {
  if (m.file !== p.file.path || !p.file.fleet) return false;
  return isDeepStrictEqual(originOf(m).origin([p.kind.name, ...p.at]), p.path.slice(0, p.path.length - p.at.length - 1));
}

/**
 * Why the entry cannot take the value: servers taking it from this entry whose live values differ
 * (drifted to another value, or as declared now, which the new value would make drift). Names both.
 */
function disagreement(p: Pending, witness: Pending | undefined, compared: Compared[], all: Managed[], originOf: (m: Managed) => Provenance): string | undefined {
  const value = p.values[0]!.value;
  const differs = p.values.find((v) => !isDeepStrictEqual(v.value, value)) ?? witness?.values.find((v) => !isDeepStrictEqual(v.value, value));
  const taking = new Set([...p.values, ...(witness?.values ?? [])].map((v) => v.server));
  // A server of this entry with no drift on the key has the value the file says now.
  const inSync = differs ? undefined : all.find((m) => !taking.has(m) && sharesEntry(m, p, originOf) && compared.some((c) => c.server === m && c.comparison));
  const unread = all.find((m) => !taking.has(m) && sharesEntry(m, p, originOf) && compared.some((c) => c.server === m && c.error));
  const first = p.values[0]!.server;
  const entry = `${formatPath(p.path.slice(0, p.path.length - p.at.length - 1)) || 'the top'} of ${p.file.path}`;
  const perServer = `declare it for ${label(first)} alone (servers: ${JSON.stringify(label(first))}: ${p.kind.name}: …) or make the servers agree first`;
  if (differs) return `${label(first)} has ${show(value)} and ${label(differs.server)} has ${show(differs.value)} for ${p.key}, which both take from ${entry}: writing one would change the other; ${perServer}`;
  if (inSync) return `${label(first)} has ${show(value)} for ${p.key} but ${label(inSync)} has ${show(p.old)} as declared, and both take it from ${entry}: writing it would change ${label(inSync)} too; ${perServer}`;
  if (unread) return `${label(unread)} also takes ${p.key} from ${entry} and could not be read: not written`;
  return undefined;
}
