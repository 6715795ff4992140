// `gsh init schema`: prints the JSON Schema of the manifest at the caps of one tier.

import { Exit, UsageError } from '../core/errors.js';
import { DEFAULT_TIER, TIERS, type Tier } from './caps.js';
import { manifestJsonSchema } from './json-schema.js';

export function runSchema(opts: { tier?: string }, io: { stdout: (text: string) => void }): number {
  const tier = opts.tier ?? DEFAULT_TIER;
  if (!(TIERS as readonly string[]).includes(tier)) throw new UsageError(`--tier must be free or paid; got '${tier}'`);
  io.stdout(`${JSON.stringify(manifestJsonSchema(tier as Tier), null, 2)}\n`);
  return Exit.ok;
}
