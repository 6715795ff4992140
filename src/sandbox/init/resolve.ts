import type { Tier } from '../../init/caps.js';
import type { SandboxContext } from '../context.js';
import { checkManifest, checkOverlay, parsedManifest, type Checked } from './manifest.js';

// What a body's `init` and `template_id` resolve to (02-endpoints-part-a.md "Init templates and
// manifest validation": inline `init`, saved `template_id`, or both, inline merged onto the
// template). Manifest problems are reported under `init.`; template resolution under
// `template_id`. Used by POST /init/validate (at the asked tier) and POST /servers (at the plan).

/** Saved templates, id → stored object, oldest first (GET lists them newest first). */
export function templatesOf(ctx: SandboxContext): Map<string, Record<string, unknown>> {
  return ctx.state.generic.collection('/init/templates');
}

export function resolveInit(ctx: SandboxContext, body: { init?: unknown; template_id?: unknown }, tier: Tier): Checked {
  if (body.template_id === undefined) return checkManifest(body.init, tier, 'init');
  if (typeof body.template_id !== 'string' || body.template_id === '') {
    return { errors: [{ field: 'template_id', message: 'template_id must be a template id string' }], warnings: [] };
  }
  const template = templatesOf(ctx).get(body.template_id);
  if (!template) return { errors: [{ field: 'template_id', message: `template ${body.template_id} not found` }], warnings: [] };
  if (body.init === undefined) return checkManifest(template.manifest, tier, 'init');
  return checkOverlay(parsedManifest(template.manifest), body.init, tier, 'init');
}
