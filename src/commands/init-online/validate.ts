import type { FieldError } from '../../core/errors.js';
import { withIdempotencyKey } from '../../core/wire/http.js';
import type { Runtime } from '../../core/run/runtime.js';
import { readManifest } from './manifest-input.js';
import { isManifestRejection, locate, manifestRejected, printLocated, type ManifestContext } from './server-problems.js';

// `gsh init validate [FILE] [--template ID] [--tier free|paid]`: POST /init/validate, a dry run
// that provisions nothing (02-endpoints-part-a.md "Init templates and manifest validation"). The
// file travels as its text in `init`; with --template it is an overlay whose top-level keys
// replace the template's. The service's errors (`init.`-prefixed) are shown against the file.

export interface ValidateFlags {
  template?: string;
  tier?: string;
}

interface Validation {
  valid?: boolean;
  tier?: string;
  warnings?: FieldError[];
}

/** With neither a file nor --template the request still goes, and the service's 400 says what is missing. */
export async function runValidate(rt: Runtime, file: string | undefined, flags: ValidateFlags): Promise<number | void> {
  const input = file === undefined ? undefined : await readManifest(file, rt.ctx.stdin);
  const ctx: ManifestContext | undefined = input && { file: input, prefixes: ['init'], ...(flags.template !== undefined ? { template: flags.template } : {}) };
  const body = {
    ...(input ? { init: input.text } : {}),
    ...(flags.template !== undefined ? { template_id: flags.template } : {}),
    ...(flags.tier !== undefined ? { tier: flags.tier } : {}),
  };
  const client = await rt.client();
  const spec = await withIdempotencyKey({ method: 'POST', path: '/init/validate', body, idempotencyKey: rt.globals.idempotencyKey });
  return rt.submit({ requests: [spec], then: [] }, async () => {
    let data: Validation;
    try {
      const res = await client.request<{ data?: Validation }>(spec);
      data = res.body?.data ?? {};
    } catch (err) {
      if (ctx && isManifestRejection(err)) manifestRejected(rt, err, ctx);
      throw err;
    }
    const warnings = data.warnings ?? [];
    if (ctx) printLocated(rt, 'warning', locate(warnings, ctx), ctx.file.text);
    else for (const w of warnings) rt.warn(`${w.message} [${w.field}]`);
    if (rt.format !== 'table') {
      await rt.out.show(data);
      return;
    }
    const what = [input?.name, flags.template !== undefined ? `template ${flags.template}` : undefined].filter(Boolean).join(' over ');
    rt.io.stdout.write(`${what}: valid at the ${data.tier ?? flags.tier ?? 'default'} caps${warnings.length ? ` (${warnings.length} warning${warnings.length === 1 ? '' : 's'})` : ''}\n`);
  });
}
