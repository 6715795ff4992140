import { UsageError } from '../core/errors.js';

/** A flag value that must be one of a fixed set; anything else is a usage error (exit 2). */
export function choice<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} must be one of ${allowed.join(', ')}; got '${value}'`);
}
