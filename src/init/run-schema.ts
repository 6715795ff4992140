// `gsh init schema`: prints the JSON Schema of the manifest at the caps of one tier.

import { Exit } from '../core/errors.js';
import { DEFAULT_TIER, TIERS } from './caps.js';
import { choice } from './choice.js';
import { manifestJsonSchema } from './json-schema.js';

export function runSchema(opts: { tier?: string }, io: { stdout: (text: string) => void }): number {
  const tier = choice(opts.tier ?? DEFAULT_TIER, TIERS, '--tier');
  io.stdout(`${JSON.stringify(manifestJsonSchema(tier), null, 2)}\n`);
  return Exit.ok;
}
