import { UsageError } from '../../core/errors.js';
import { pathIdProblem } from '../../core/flags/checks.js';
import { withIdempotencyKey } from '../../core/wire/http.js';
import type { Runtime } from '../../core/run/runtime.js';
import { findExisting } from '../../core/wire/if-absent.js';
import { lintBeforeSending } from '../../leaf/manifest-lint.js';
import { step } from '../../core/plan.js';
import { readManifest, type ManifestInput } from './manifest-input.js';
import { isManifestRejection, manifestRejected } from './server-problems.js';

// `gsh init templates create FILE --name N` and `update ID [FILE]`: POST and PATCH
// /init/templates (02-endpoints-part-a.md). The service validates a template at the paid caps, so
// the file is linted locally at those caps first and nothing is sent while it has errors
// (--no-lint sends it anyway). The manifest travels as its text in `manifest`.

export interface TemplateFlags {
  name?: string;
  description?: string;
  /** commander's --no-lint sets this false. */
  lint?: boolean;
  /** Create only if no template has this name (CI re-runs). */
  ifAbsent?: boolean;
}

async function send(rt: Runtime, method: 'POST' | 'PATCH', path: string, body: Record<string, unknown>, input: ManifestInput | undefined, ifAbsent = false): Promise<number | void> {
  const client = await rt.client();
  const spec = await withIdempotencyKey({ method, path, body, idempotencyKey: rt.globals.idempotencyKey });
  const lookup = ifAbsent ? [{ method: 'GET' as const, path }] : [];
  const then = ifAbsent ? [step('local', `send the next request only if no template is named ${JSON.stringify(body.name)}`)] : [];
  return rt.submit({ requests: [...lookup, spec], then }, async () => {
    if (ifAbsent) {
      const existing = await findExisting(client, path, 'name', body.name);
      if (existing) {
        rt.note(`a template named ${JSON.stringify(body.name)} exists (${existing.id}); nothing created (--if-absent)`);
        await rt.out.show(rt.format === 'table' ? Object.fromEntries(Object.entries(existing.item).filter(([k]) => k !== 'manifest')) : existing.item);
        return;
      }
    }
    try {
      const res = await client.request<{ data?: Record<string, unknown> }>(spec);
      const template = res.body?.data ?? {};
      // The manifest is the file just sent: a table shows the template without it.
      const shown = rt.format === 'table' ? Object.fromEntries(Object.entries(template).filter(([k]) => k !== 'manifest')) : template;
      await rt.out.show(shown);
    } catch (err) {
      // The field the manifest travelled in is `manifest`; accept `init.` too, as /init/validate names it.
      if (input && isManifestRejection(err)) manifestRejected(rt, err, { file: input, prefixes: ['manifest', 'init'] });
      throw err;
    }
  });
}

/** Without a file only the name and description are sent, and the service says what is missing. */
export async function runTemplateCreate(rt: Runtime, file: string | undefined, flags: TemplateFlags): Promise<number | void> {
  if (flags.name === undefined || flags.name.trim() === '') throw new UsageError('--name is required (unique per account)');
  const input = file === undefined ? undefined : await readManifest(file, rt.ctx.stdin);
  if (input && flags.lint !== false) await lintBeforeSending(rt, input.name, input.bytes, 'paid', 'templates are saved at');
  return send(rt, 'POST', '/init/templates', {
    name: flags.name,
    ...(flags.description !== undefined ? { description: flags.description } : {}),
    ...(input ? { manifest: input.text } : {}),
  }, input, flags.ifAbsent === true);
}

/** Like every PATCH gsh sends, an update with nothing to change still goes; the service answers. */
export async function runTemplateUpdate(rt: Runtime, id: string, file: string | undefined, flags: TemplateFlags): Promise<number | void> {
  const problem = pathIdProblem(id);
  if (problem) throw new UsageError(`<template-id> ${problem} (got "${id}")`);
  const input = file === undefined ? undefined : await readManifest(file, rt.ctx.stdin);
  if (input && flags.lint !== false) await lintBeforeSending(rt, input.name, input.bytes, 'paid', 'templates are saved at');
  return send(rt, 'PATCH', `/init/templates/${encodeURIComponent(id)}`, {
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(flags.description !== undefined ? { description: flags.description } : {}),
    ...(input ? { manifest: input.text } : {}),
  }, input);
}
