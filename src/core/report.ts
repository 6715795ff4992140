import { ApiError, Exit, GshError } from './errors.js';
import { ansi, type Streams } from './io.js';

// Error lines (DESIGN.md "Exit codes"): the API's code, the HTTP status and the request_id, field
// errors one per line, and action_url when there is one; a JSON object on stderr under --json.

export function reportError(err: unknown, io: Streams, opts: { json: boolean; debug: boolean }): number {
  if (!(err instanceof GshError)) {
    const e = err as Error;
    if (opts.json) io.stderr.write(`${JSON.stringify({ error: { code: 'internal', message: String(e?.message ?? e) } })}\n`);
    else io.stderr.write(`${ansi.red('error:', io.colorErr)} ${String(e?.message ?? e)}\n`);
    if (opts.debug && e?.stack) io.stderr.write(`${e.stack}\n`);
    else if (!opts.json) io.stderr.write('This is a bug in gsh; --debug shows where it happened.\n');
    return Exit.error;
  }
  if (opts.json) {
    const base: Record<string, unknown> = { message: err.message, exit_code: err.exitCode };
    if (err instanceof ApiError) {
      Object.assign(base, {
        code: err.code, status: err.status, request_id: err.requestId, errors: err.fieldErrors.length ? err.fieldErrors : undefined,
        action_url: err.actionUrl, payment: err.body.payment, approval: err.body.approval,
      });
    }
    if (err.hint) base.hint = err.hint;
    io.stderr.write(`${JSON.stringify({ error: base })}\n`);
    return err.exitCode;
  }
  const c = io.colorErr;
  let line = `${ansi.red('error:', c)} ${err.message}`;
  if (err instanceof ApiError) {
    const bits = [err.code, `HTTP ${err.status}`, err.requestId ? `request_id ${err.requestId}` : ''].filter(Boolean);
    line += ansi.dim(` (${bits.join(', ')})`, c);
  }
  io.stderr.write(`${line}\n`);
  if (err instanceof ApiError) {
    for (const fe of err.fieldErrors) io.stderr.write(`  ${ansi.bold(fe.field, c)}: ${fe.message}\n`);
    if (err.actionUrl) io.stderr.write(`  Open: ${err.actionUrl}\n`);
    const payment = err.body.payment;
    if (payment && typeof payment === 'object') {
      for (const [k, v] of Object.entries(payment)) if (typeof v === 'string' && /^https?:/.test(v)) io.stderr.write(`  ${k}: ${v}\n`);
    }
    if (err.retryAfter !== undefined && err.status === 429) io.stderr.write(`  Retry after ${err.retryAfter} s.\n`);
  }
  const hint = err.hint ?? (err instanceof ApiError ? hintFor(err) : undefined);
  if (hint) io.stderr.write(`${ansi.dim(hint, c)}\n`);
  return err.exitCode;
}

function hintFor(err: ApiError): string | undefined {
  if (err.status === 401) return 'The credential was refused: run `gsh auth login`, or check GSH_API_KEY / GSH_TOKEN.';
  if (err.status === 403 && err.code === 'forbidden') return 'The key lacks the scope or server permission this needs; `gsh auth status` shows its scopes.';
  if (err.status === 429) return 'Rate limited after retries; try again later or raise the key\'s limit.';
  if (err.status >= 500) return 'The service kept failing after retries; try again later (--debug shows each attempt).';
  return undefined;
}
