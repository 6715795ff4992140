// `gsh config export`: one file per server, DIR/<server name>.yaml, with what the server has of
// each declarable kind (README "Configuration as code"). A webhook's secret is never read back
// (02 "Webhooks": returned only at creation), so the file holds a ${env:…} placeholder instead.

import { makeDir } from '../core/disk/disk.js';
import { dirname, join } from 'node:path';
import { Exit, GshError, InterruptedError, ownError, UsageError } from '../core/errors.js';
import { parallelOption } from '../core/fleet/fleet.js';
import { stdinFor } from '../core/flags/fields.js';
import type { Runtime } from '../core/run/runtime.js';
import { resolveTargets, type Target, targetRefs } from '../core/fleet/targets.js';
import { choiceList } from '../core/flags/choices.js';
import type { Live } from './compare.js';
import { KIND_NAMES, KINDS, kindNamed } from './kinds/index.js';
import type { ApiClient } from '../core/wire/http.js';
import { readLive, readSpecs } from './live.js';
import { step } from '../core/plan.js';
import { estimate, listServers, pool } from './run.js';
import { declarationExists, writeDeclaration } from './write-file.js';
import { exportFiles, printableName } from './file-names.js';

export interface ExportOptions {
  server?: string | string[];
  dir?: string;
  only?: string;
  force?: boolean;
  parallel?: string;
}

/** The declaration text of one server's live state. */
export async function declarationText(name: string, live: Live, pinId?: string): Promise<string> {
  const { Document } = await import('yaml');
  const out: Record<string, unknown> = { version: 1, ...(pinId !== undefined ? { id: pinId } : {}), server: name };
  for (const kind of KINDS) {
    if (!(kind.name in live)) continue;
    const section = kind.export(live[kind.name], { server: name });
    if (section !== undefined) out[kind.name] = section;
  }
  const doc = new Document(out);
  doc.commentBefore = ` gsh config export of ${printableName(name)}. Edit, then: gsh config diff FILE; gsh config apply FILE\n A webhook's secret is never read back: it is sent from the named variable when the webhook is created.`;
  return doc.toString({ lineWidth: 0 });
}

/**
 * The targets with their names, which name their files: `id:` references alone are not looked
 * up, so the one listing is read here, before anything else.
 */
async function withNames(client: ApiClient, targets: Target[]): Promise<Target[]> {
  if (targets.every((t) => t.name !== undefined)) return targets;
  const names = new Map((await listServers(client)).map((s) => [s.id, s.name]));
  return targets.map((t) => (t.name === undefined && names.get(t.id) !== undefined ? { ...t, name: names.get(t.id)! } : t));
}

/** The account's file in DIR: what the account declares (Kind.account), beside the files it names. */
const ACCOUNT_FILE = 'account.yaml';

export async function runExport(rt: Runtime, o: ExportOptions): Promise<number> {
  const only = choiceList(o.only, '--only', KIND_NAMES, 'kinds');
  // The account's kinds are exported when --only names them, and then alone (no server is read).
  const accountKinds = (only ?? []).filter((k) => kindNamed(k)?.account);
  if (accountKinds.length) return runAccountExport(rt, o, only!, accountKinds);
  const kinds: readonly string[] = only ?? KINDS.filter((k) => !k.account).map((k) => k.name);
  const parallel = parallelOption(o.parallel);
  const dir = o.dir ?? '.';
  const refs = targetRefs(o.server, undefined, rt.env);
  const client = await rt.client();
  const targets = await withNames(client, await resolveTargets(client, refs, await stdinFor(refs.refs, () => rt.ctx.stdin), rt.references));
  // Every server's file is named at once, before anything is read: none shares one (file-names.ts).
  const files = exportFiles(targets);
  const pathOf = (t: Target) => (files.get(t.id)?.file === undefined ? undefined : join(dir, files.get(t.id)!.file!));
  const refused = targets.filter((t) => pathOf(t) === undefined);
  // Every file is checked before anything is read: an export that would overwrite changes nothing.
  if (!o.force) {
    const there = targets.filter((t) => pathOf(t) !== undefined && declarationExists(pathOf(t)!));
    if (there.length) throw new UsageError(`${there.map((t) => pathOf(t)).join(', ')} ${there.length === 1 ? 'exists' : 'exist'}; nothing was exported`, 'Give --force to replace them, or --dir another directory.');
  }
  // --dry-run: the reads it would make and exactly the files the run would write; no file is written.
  if (rt.dryRun) {
    const writing = targets.filter((t) => pathOf(t) !== undefined);
    const then = [
      ...(writing.length ? [step('local', `write ${writing.map((t) => pathOf(t)).join(', ')}`)] : []),
      ...refused.map((t) => step('local', `not export ${t.name ?? t.id} (${t.id}): ${files.get(t.id)!.refused}`)),
    ];
    return (await rt.submit({ requests: writing.flatMap((t) => readSpecs(t.id, kinds)), then }, async () => {})) ?? Exit.ok;
  }
  try {
    makeDir(dir);
  } catch (err) {
    throw new UsageError(`cannot create ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  estimate(rt, client, targets.length * kinds.length, 'Exporting');
  const results = await pool(targets, parallel, async (t) => {
    try {
      const planned = files.get(t.id)!;
      if (planned.refused !== undefined) throw new GshError(planned.refused);
      const live = await readLive(client, t.id, kinds, undefined, { absentOk: true });
      const name = t.name ?? KINDS.map((k) => (k.name in live ? k.serverName?.(live[k.name]) : undefined)).find((n) => n !== undefined) ?? t.id;
      const path = pathOf(t)!;
      writeDeclaration(path, await declarationText(name, live, planned.pinned ? t.id : undefined), o.force === true);
      return { server_id: t.id, server_name: name, ok: true, file: path };
    } catch (caught) {
      const err = ownError(caught);
      if (err instanceof InterruptedError) throw err;
      return { server_id: t.id, server_name: t.name ?? null, ok: false, error: (err as Error).message };
    }
  });
  const list = results.filter((r) => r !== undefined);
  await rt.out.show(list, { columns: ['server_name', 'ok', 'file', 'error'] });
  const failed = list.filter((r) => !r.ok);
  for (const f of failed) rt.warn(`${f.server_name ?? f.server_id}: not exported: ${f.error}`);
  return failed.length ? Exit.someFailed : Exit.ok;
}

/**
 * `--only` of the account's kinds: DIR/account.yaml and the files its sections name beside it (an
 * init template's manifest), none written when any of them stands there without --force.
 */
async function runAccountExport(rt: Runtime, o: ExportOptions, only: readonly string[], kinds: readonly string[]): Promise<number> {
  if (only.length > kinds.length || o.server !== undefined) throw new UsageError(`--only ${kinds.join(',')} exports the account, not a server: give it alone, without -s`, `gsh config export --only ${kinds.join(',')} --dir DIR; the servers with another gsh config export -s SERVERS.`);
  const dir = o.dir ?? '.';
  const path = join(dir, ACCOUNT_FILE);
  const exists = (p: string) => !o.force && declarationExists(p);
  if (exists(path)) throw new UsageError(`${path} exists; nothing was exported`, 'Give --force to replace it, or --dir another directory.');
  const client = await rt.client();
  if (rt.dryRun) return (await rt.submit({ requests: readSpecs('', kinds), then: [step('local', `write ${path} and the files it names beside it`)] }, async () => {})) ?? Exit.ok;
  const live = await readLive(client, '', kinds);
  const out: Record<string, unknown> = { version: 1 };
  const files: Array<{ path: string; text: string }> = [];
  for (const kind of KINDS) {
    if (!(kind.name in live)) continue;
    out[kind.name] = kind.export(live[kind.name], { server: '' });
    files.push(...(kind.attachments?.(live[kind.name]) ?? []).map((f) => ({ path: join(dir, f.path), text: f.text })));
  }
  const there = files.filter((f) => exists(f.path));
  if (there.length) throw new UsageError(`${there.map((f) => f.path).join(', ')} ${there.length === 1 ? 'exists' : 'exist'}; nothing was exported`, 'Give --force to replace them, or --dir another directory.');
  const { Document } = await import('yaml');
  const doc = new Document(out);
  doc.commentBefore = ' gsh config export of the account. Edit, then: gsh config diff FILE; gsh config apply FILE';
  try {
    for (const d of new Set([dir, ...files.map((f) => dirname(f.path))])) makeDir(d);
  } catch (err) {
    throw new UsageError(`cannot create ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  for (const f of files) writeDeclaration(f.path, f.text, o.force === true);
  writeDeclaration(path, doc.toString({ lineWidth: 0 }), o.force === true);
  await rt.out.show([{ account: true, ok: true, file: path, files: files.map((f) => f.path) }], { columns: ['ok', 'file', 'files'] });
  return Exit.ok;
}
