import { Exit, GshError, UsageError } from '../../core/errors.js';
import { withIdempotencyKey } from '../../core/http.js';
import type { Runtime } from '../../core/runtime.js';
import { FORMATTERS } from '../../init/format/index.js';
import { lintBytes } from '../../init/lint.js';
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
}

/** Prints the linter's findings on stderr; errors stop the command before any request. */
function lintLocally(rt: Runtime, input: ManifestInput): void {
  const { problems, lines } = lintBytes(input.bytes, 'paid');
  if (problems.length === 0) return;
  const format = rt.io.stderrTTY ? FORMATTERS.stylish : FORMATTERS.compact;
  rt.io.stderr.write(format([{ file: input.name, problems, lines }], { color: rt.io.colorErr }));
  const errors = problems.filter((p) => p.severity === 'error').length;
  if (errors > 0) {
    throw new GshError(
      `${input.name}: ${errors} error${errors === 1 ? '' : 's'} at the paid caps templates are saved at; nothing was sent`,
      Exit.error,
      'Fix them, or add --no-lint to send it anyway and see the service\'s answer.',
    );
  }
}

async function send(rt: Runtime, method: 'POST' | 'PATCH', path: string, body: Record<string, unknown>, input: ManifestInput | undefined): Promise<number | void> {
  const client = await rt.client();
  const spec = await withIdempotencyKey({ method, path, body, idempotencyKey: rt.globals.idempotencyKey });
  return rt.submit({ requests: [spec], then: [] }, async () => {
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
  if (input && flags.lint !== false) lintLocally(rt, input);
  return send(rt, 'POST', '/init/templates', {
    name: flags.name,
    ...(flags.description !== undefined ? { description: flags.description } : {}),
    ...(input ? { manifest: input.text } : {}),
  }, input);
}

/** Like every PATCH gsh sends, an update with nothing to change still goes; the service answers. */
export async function runTemplateUpdate(rt: Runtime, id: string, file: string | undefined, flags: TemplateFlags): Promise<number | void> {
  const input = file === undefined ? undefined : await readManifest(file, rt.ctx.stdin);
  if (input && flags.lint !== false) lintLocally(rt, input);
  return send(rt, 'PATCH', `/init/templates/${encodeURIComponent(id)}`, {
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(flags.description !== undefined ? { description: flags.description } : {}),
    ...(input ? { manifest: input.text } : {}),
  }, input);
}
