import { parse, stringify } from 'yaml';
import type { Tier } from '../../init/caps.js';
import { lintBytes } from '../../init/lint.js';
import type { Problem } from '../../init/problem.js';
import { HEADER } from '../../init/vocabulary.js';
import type { FieldError } from '../envelope.js';

// The service side of manifest validation (01-general-contract.md "Init manifest", "Caps by
// plan"): the same linter as `gsh init lint`, at the tier the caller's operation calls for, and
// the overlay rule ("top-level keys of the overlay replace the template's keys").
//
// A manifest arrives as its YAML text (what gsh sends: the header line is a comment) or as a
// parsed object (the contract does not show which; both are accepted). An object has no header
// line to check, so it is linted as the header followed by its YAML.

export type Manifest = Record<string, unknown>;

export interface Checked {
  /** Field errors under `field` (`init`, `init.files[0].path`). */
  errors: FieldError[];
  warnings: FieldError[];
  /** The resolved manifest when there are no errors. */
  manifest?: Manifest;
}

/** The text to lint for a body value, or undefined when it is neither text nor an object. */
export function manifestText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isPlainObject(value)) return `${HEADER}\n${stringify(value)}`;
  return undefined;
}

function isPlainObject(value: unknown): value is Manifest {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldOf(prefix: string, path: string): string {
  if (path === '') return prefix;
  return path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
}

function toFieldErrors(problems: readonly Problem[], prefix: string, severity: Problem['severity']): FieldError[] {
  return problems.filter((p) => p.severity === severity).map((p) => ({ field: fieldOf(prefix, p.path), message: p.message }));
}

function lintText(text: string, tier: Tier, prefix: string): Checked {
  const { problems } = lintBytes(Buffer.from(text, 'utf8'), tier);
  const errors = toFieldErrors(problems, prefix, 'error');
  const checked: Checked = { errors, warnings: toFieldErrors(problems, prefix, 'warning') };
  if (errors.length === 0) checked.manifest = parse(text) as Manifest;
  return checked;
}

const NOT_A_MANIFEST = 'must be the manifest: its YAML text (first line #service-init) or an object';

/** Validates one whole manifest given in a body field. */
export function checkManifest(value: unknown, tier: Tier, prefix: string): Checked {
  const text = manifestText(value);
  if (text === undefined) return { errors: [{ field: prefix, message: `${prefix} ${NOT_A_MANIFEST}` }], warnings: [] };
  return lintText(text, tier, prefix);
}

/**
 * A template's manifest with an inline overlay on top. The overlay alone need not be complete
 * (the template may give `version`), so only its document-level problems (header, YAML syntax,
 * size: those without a field path) are checked on its own; the merged manifest is then linted
 * as a whole.
 */
export function checkOverlay(template: Manifest, overlay: unknown, tier: Tier, prefix: string): Checked {
  const text = manifestText(overlay);
  if (text === undefined) return { errors: [{ field: prefix, message: `${prefix} ${NOT_A_MANIFEST}` }], warnings: [] };
  const own = lintBytes(Buffer.from(text, 'utf8'), tier).problems.filter((p) => p.path === '');
  const ownErrors = toFieldErrors(own, prefix, 'error');
  if (ownErrors.length) return { errors: ownErrors, warnings: [] };
  const merged = { ...template, ...(parse(text) as Manifest | null ?? {}) };
  return lintText(`${HEADER}\n${stringify(merged)}`, tier, prefix);
}

/** A stored template manifest (validated when saved) as an object. */
export function parsedManifest(value: unknown): Manifest {
  const text = manifestText(value) ?? '';
  const parsed: unknown = parse(text);
  return isPlainObject(parsed) ? parsed : {};
}
