import { readFileSync } from 'node:fs';
import type { Field } from '../../operations/types.js';
import { CHECKS } from './checks.js';
import { UsageError } from '../errors.js';
import { similar } from '../../common/suggest.js';
import type { Json, StdinText } from './fields.js';

// A declared field's flag text → the JSON value the API gets, with the registry's checks (type,
// choices, ranges, item counts, named rules). Violations are usage errors (exit 2), never sent.

export function flagName(field: Field): string {
  return field.flag ?? field.name.replace(/_/g, '-');
}

/** The camelCase key commander stores a field's flag under (`--free-tier` → freeTier). */
export function optionKey(field: Field): string {
  const flag = field.secret ? `${flagName(field)}-file` : flagName(field);
  return flag.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** A secret field's value: the named file's text (or stdin's for -), trimmed. */
export function readSecretFlag(field: Field, file: unknown, stdin: StdinText): string | undefined {
  if (file === undefined) return undefined;
  const value = readFlagFile(String(file), `--${flagName(field)}-file`, stdin).trim();
  if (!value) throw new UsageError(`--${flagName(field)}-file: ${String(file)} is empty`);
  return value;
}

/**
 * A flag's value, converted and checked. `inBody`: the field travels in the body, where -f/-F can
 * send any value, so even an open vocabulary is checked on the flag (-f is the escape).
 */
export function convertField(field: Field, raw: unknown, stdin: StdinText, inBody = false): Json | undefined {
  if (raw === undefined) return undefined;
  const flag = `--${flagName(field)}`;
  const fail = (why: string): never => {
    throw new UsageError(`${flag} ${why}`);
  };
  switch (field.type) {
    case 'boolean': {
      if (field.sends !== undefined) return raw === true ? field.sends : undefined;
      if (typeof raw === 'boolean') return raw;
      const s = String(raw).toLowerCase();
      if (s === 'true') return true;
      if (s === 'false') return false;
      return fail(`takes true or false (got "${String(raw)}")`);
    }
    case 'integer':
    case 'number': {
      const s = String(raw).trim();
      const n = Number(s);
      if (s === '' || !Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) {
        return fail(`takes ${field.type === 'integer' ? 'a whole number' : 'a number'} (got "${s}")`);
      }
      if (!field.clamp) {
        if (field.min !== undefined && n < field.min) fail(`must be at least ${field.min}`);
        if (field.max !== undefined && n > field.max) fail(`must be at most ${field.max}`);
      }
      checkChoice(field, s, flag);
      return n;
    }
    case 'string[]': {
      const items = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(',')).map((s) => s.trim()).filter(Boolean);
      if (field.maxItems !== undefined && items.length > field.maxItems) fail(`takes at most ${field.maxItems} items (got ${items.length})`);
      for (const item of items) {
        checkChoice(field, item, flag, inBody);
        checkNamed(field, item, flag);
      }
      return items;
    }
    case 'json': {
      const s = String(raw);
      const text = s.startsWith('@') ? readFlagFile(s.slice(1), flag, stdin) : s;
      try {
        return JSON.parse(text) as Json;
      } catch {
        return fail('takes JSON (or @file with JSON)');
      }
    }
    case 'text-file': {
      const text = readFlagFile(String(raw), flag, stdin);
      if (text.trim() === '') fail(`names an empty file (${String(raw)})`);
      return text;
    }
    case 'string': {
      const s = String(raw);
      checkChoice(field, s, flag, inBody);
      checkNamed(field, s, flag);
      return s;
    }
  }
}

function checkChoice(field: Field, value: string, flag: string, inBody = false): void {
  if (!field.choices || field.choices.includes(value) || (field.open && !inBody)) return;
  const near = similar(value, field.choices);
  const guess = near.length ? ` (did you mean ${near.join(' or ')}?)` : '';
  if (field.open) {
    const escape = field.type === 'string[]' ? `-f '${field.name}[]=${value}'` : `-f '${field.name}=${value}'`;
    throw new UsageError(`${flag}: "${value}" is not a documented value${guess}`, `Documented: ${field.choices.join(', ')}. To send it anyway: ${escape}.`);
  }
  throw new UsageError(`${flag} must be one of: ${field.choices.join(', ')} (got "${value}")${guess}`);
}

function checkNamed(field: Field, value: string, flag: string): void {
  const problem = field.check ? CHECKS[field.check](value) : undefined;
  if (problem) throw new UsageError(`${flag} ${problem} (got "${value}")`);
}

function readFlagFile(path: string, flag: string, stdin: StdinText): string {
  if (path === '-') return stdin.take();
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
