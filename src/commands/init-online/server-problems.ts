import { ApiError, type FieldError, GshError } from '../../core/errors.js';
import { ansi } from '../../core/terminal/io.js';
import type { Runtime } from '../../core/run/runtime.js';
import { ManifestLocator, parseFieldPath, type Location } from './field-location.js';
import type { ManifestInput } from './manifest-input.js';

// The service's field errors and warnings about a manifest, shown against the lines of the local
// file: `server.yaml:4:10: error: message [init.hooks[0].url]` and the source line under it.
// Fields outside the manifest (template_id, tier, name) are shown as they came.

export interface ManifestContext {
  file: ManifestInput;
  /** The body field the manifest travelled in; its errors are `<prefix>.<path>`. */
  prefixes: readonly string[];
  /** With an overlay: top-level keys the file does not have came from this template. */
  template?: string;
}

export interface Located extends FieldError {
  file?: string;
  line?: number;
  column?: number;
  template?: string;
}

function manifestPath(field: string, prefixes: readonly string[]): string | undefined {
  for (const prefix of prefixes) {
    if (field === prefix) return '';
    if (field.startsWith(`${prefix}.`)) return field.slice(prefix.length + 1);
    if (field.startsWith(`${prefix}[`)) return field.slice(prefix.length);
  }
  return undefined;
}

export function locate(problems: readonly FieldError[], ctx: ManifestContext): Located[] {
  const locator = new ManifestLocator(ctx.file.text);
  return problems.map((p) => {
    const rest = manifestPath(p.field, ctx.prefixes);
    if (rest === undefined) return { ...p };
    const path = parseFieldPath(rest) ?? [];
    const at: Location | undefined = path.length === 0 ? { line: 1, column: 1, exact: true, depth: 0 } : locator.locate(path);
    if (ctx.template !== undefined && at !== undefined && at.depth === 0 && path.length > 0) return { ...p, template: ctx.template };
    return { ...p, file: ctx.file.name, ...(at ? { line: at.line, column: at.column } : {}) };
  });
}

export function printLocated(rt: Runtime, severity: 'error' | 'warning', located: readonly Located[], text: string): void {
  const c = rt.io.colorErr;
  const label = severity === 'error' ? ansi.red('error', c) : ansi.yellow('warning', c);
  const locator = new ManifestLocator(text);
  for (const p of located) {
    const where = p.template !== undefined ? `template ${p.template}: ` : p.file !== undefined ? `${p.file}${p.line !== undefined ? `:${p.line}:${p.column}` : ''}: ` : '';
    rt.io.stderr.write(`${where}${label}: ${p.message} ${ansi.dim(`[${p.field}]`, c)}\n`);
    if (p.line !== undefined && p.template === undefined) rt.io.stderr.write(ansi.dim(`    ${p.line} | ${locator.lineText(p.line)}\n`, c));
  }
}

/**
 * A 422 about the manifest: in a table (text) output the located lines go to stderr and the error
 * line names the code, status and request id; in json/yaml output the ApiError is rethrown with
 * each field error carrying file, line and column, for scripts.
 */
export function manifestRejected(rt: Runtime, err: ApiError, ctx: ManifestContext): never {
  const located = locate(err.fieldErrors, ctx);
  if (rt.format !== 'table') {
    err.fieldErrors.splice(0, err.fieldErrors.length, ...located);
    throw err;
  }
  printLocated(rt, 'error', located, ctx.file.text);
  const bits = [err.code, `HTTP ${err.status}`, err.requestId ? `request_id ${err.requestId}` : ''].filter(Boolean).join(', ');
  throw new GshError(`${err.message} (${bits})`, err.exitCode);
}

export function isManifestRejection(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status === 422 && err.fieldErrors.length > 0;
}
