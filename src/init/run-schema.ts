// `gsh init schema`: prints the JSON Schema of the manifest at the caps of one tier.

import { DEFAULT_TIER, TIERS } from './caps.js';
import { choice } from './choice.js';
import { manifestJsonSchema } from './json-schema.js';

/** The schema at the caps of `--tier` (checked: an unknown tier is a usage error). */
export function schemaFor(opts: { tier?: string }): object {
  return manifestJsonSchema(choice(opts.tier ?? DEFAULT_TIER, TIERS, '--tier'));
}
