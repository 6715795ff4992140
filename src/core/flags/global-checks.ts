import type { Env } from '../terminal/streams.js';
import { UsageError } from '../errors.js';
import type { Globals } from './global-flags.js';
import { checkIdempotencyKey } from '../wire/http.js';
import { COLUMN_FORMATS, FORMATS, type Format, type Shaping } from '../terminal/output.js';
import { parseDuration } from './duration.js';

// Every global flag checked (ARCHITECTURE.md "Adding a global flag"), before an action can send a
// request: a bad value or a combination that would silently ignore a flag is a usage error here.

export const DEFAULT_WAIT_MS = 10 * 60_000;
export const DEFAULT_REQUEST_TIMEOUT = '30s';

/** The global flags as values a run uses. */
export interface RunOptions {
  /** The output format; `json` when --jq is given (the data jq reads). */
  format: Format;
  /** -q, --columns and --no-header (--jq is compiled later, by Runtime.prepare). */
  shaping: Shaping;
  /** --timeout: the limit on waiting (--wait, --expect). */
  waitLimitMs: number;
  retries: number;
  /** --request-timeout: the limit on one attempt (connect, headers, a stalled body). */
  requestTimeoutMs: number;
  dryRun: boolean;
}

/** `quiet`: -q on a list command. */
export function checkGlobals(globals: Globals, env: Env, quiet: boolean): RunOptions {
  const format = resolveFormat(globals);
  const jqRows = globals.jq !== undefined && (globals.output === 'csv' || globals.output === 'tsv') ? (globals.output as 'csv' | 'tsv') : undefined;
  const shaping = { columns: checkShaping(globals, jqRows ?? format, quiet), header: globals.header !== false, quiet, ...(jqRows ? { jqRows } : {}), ...(globals.showSecret ? { showSecret: true } : {}) };
  if (globals.idempotencyKey !== undefined) checkIdempotencyKey(globals.idempotencyKey);
  const waitLimitMs = globals.timeout ? parseDuration(globals.timeout, '--timeout') : DEFAULT_WAIT_MS;
  const retries = parseRetries(globals.retries);
  const requestTimeout = globals.requestTimeout ?? env.GSH_REQUEST_TIMEOUT ?? DEFAULT_REQUEST_TIMEOUT;
  const flag = globals.requestTimeout === undefined ? 'GSH_REQUEST_TIMEOUT' : '--request-timeout';
  const requestTimeoutMs = parseDuration(requestTimeout, flag);
  if (requestTimeoutMs <= 0) throw new UsageError(`${flag} must be more than 0`);
  return { format, shaping, waitLimitMs, retries, requestTimeoutMs, dryRun: globals.dryRun === true };
}

function parseRetries(raw: string | undefined): number {
  if (raw === undefined) return 4;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(n) || n > 20) throw new UsageError(`--retries must be a whole number from 0 to 20 (got "${raw}")`);
  return n;
}

function resolveFormat(g: Globals): Format {
  if (g.json || g.jq !== undefined) return 'json';
  const f = g.output ?? 'table';
  if (!(FORMATS as readonly string[]).includes(f)) {
    throw new UsageError(`unknown output format "${f}"`, `Use one of: ${FORMATS.join(', ')}.`);
  }
  return f as Format;
}

/**
 * --jq, -q, --columns and --no-header against each other and the format: each combination that
 * would silently ignore one of them is a usage error. Returns the column paths.
 */
function checkShaping(g: Globals, format: Format, quiet: boolean): string[] | undefined {
  const explicitFormat = g.output !== undefined || g.json === true;
  // --jq with -o csv|tsv writes the objects it yields as rows (--columns and --no-header shape them).
  const jqRows = g.output === 'csv' || g.output === 'tsv';
  if (g.jq !== undefined && (quiet || (!jqRows && (g.columns !== undefined || g.header === false || (g.output !== undefined && g.output !== 'json'))))) {
    throw new UsageError('--jq prints what the expression yields: it does not combine with -q, nor with --columns, --no-header or -o other than json, csv or tsv', 'Shape the output in the expression instead, e.g. --jq \'.[] | [.id, .name] | @csv\', or make it yield objects and add -o csv.');
  }
  if (quiet && (explicitFormat || g.columns !== undefined || g.header === false)) {
    throw new UsageError('-q prints identifiers only: it does not combine with -o, --columns or --no-header');
  }
  const columnFormat = (COLUMN_FORMATS as readonly string[]).includes(format);
  if (!columnFormat && g.columns !== undefined) throw new UsageError(`--columns applies to -o table, csv or tsv (not ${format})`);
  if (!columnFormat && g.header === false) throw new UsageError(`--no-header applies to -o table, csv or tsv (not ${format})`);
  if (g.columns === undefined) return undefined;
  const paths = g.columns.split(',').map((c) => c.trim());
  const bad = paths.find((c) => !/^(\.|[\w-]+(\.[\w-]+)*)$/.test(c));
  if (bad !== undefined) throw new UsageError(`--columns: "${bad}" is not a field path`, 'Give comma-separated dot paths, e.g. --columns id,name,status.state.');
  return paths;
}
