import { ApiError, Exit, GshError, OutcomeUnknownError, WaitStoppedError } from './errors.js';
import { ansi, type Streams } from './io.js';
import { redactSignedUrls } from './redact.js';
import { forTerminal } from './terminal-text.js';

// Error lines (DESIGN.md "Exit codes"): the API's code, the HTTP status and the request_id, field
// errors one per line, and action_url when there is one; a JSON object on stderr under --json.

export function reportError(err: unknown, io: Streams, opts: { json: boolean; debug: boolean; argv?: readonly string[] }): number {
  // Messages carry the service's text (its error message, field names, a server's name): on a
  // terminal its control characters are shown before gsh colours the line (core/terminal-text.ts).
  const t = (s: string) => forTerminal(s, io.stderrTTY);
  if (!(err instanceof GshError)) {
    const e = err as Error;
    if (opts.json) io.stderr.write(`${JSON.stringify({ error: { code: 'internal', message: String(e?.message ?? e) } })}\n`);
    else io.stderr.write(`gsh: internal error: ${t(String(e?.message ?? e))} (run with --debug and report it)\n`);
    if (opts.debug && e?.stack) io.stderr.write(`${e.stack}\n`);
    return Exit.error;
  }
  if (opts.json) {
    const base: Record<string, unknown> = { message: redactSignedUrls(err.message), exit_code: err.exitCode };
    if (err instanceof ApiError) {
      Object.assign(base, {
        code: err.code, status: err.status, request_id: err.requestId, errors: err.fieldErrors.length ? err.fieldErrors : undefined,
        action_url: err.actionUrl, payment: err.body.payment, approval: err.body.approval,
      });
    }
    if (err instanceof OutcomeUnknownError) Object.assign(base, { outcome: 'unknown', idempotency_key: err.idempotencyKey });
    if (err instanceof ApiError && err.storedFailure) base.stored_failure = true;
    if (err instanceof WaitStoppedError) Object.assign(base, { under_way: err.underWay, resume: err.resume });
    const hint = hintOf(err, opts.argv);
    if (hint) base.hint = hint;
    io.stderr.write(`${JSON.stringify({ error: base })}\n`);
    return err.exitCode;
  }
  const c = io.colorErr;
  // A signed URL's signature is a credential: never in an error line.
  let line = `${ansi.red('error:', c)} ${t(redactSignedUrls(err.message))}`;
  if (err instanceof ApiError) {
    const bits = [err.code, `HTTP ${err.status}`, err.requestId ? `request_id ${err.requestId}` : ''].filter(Boolean);
    line += ansi.dim(t(` (${bits.join(', ')})`), c);
  }
  io.stderr.write(`${line}\n`);
  if (err instanceof ApiError) {
    for (const fe of err.fieldErrors) io.stderr.write(`  ${ansi.bold(t(String(fe.field)), c)}: ${t(String(fe.message))}\n`);
    if (err.actionUrl) io.stderr.write(`  Open: ${t(err.actionUrl)}\n`);
    const payment = err.body.payment;
    if (payment && typeof payment === 'object') {
      for (const [k, v] of Object.entries(payment)) if (typeof v === 'string' && /^https?:/.test(v)) io.stderr.write(`  ${t(k)}: ${t(v)}\n`);
    }
    if (err.retryAfter !== undefined && err.status === 429) io.stderr.write(`  Retry after ${err.retryAfter} s.\n`);
  }
  const hint = hintOf(err, opts.argv);
  if (hint) io.stderr.write(`${ansi.dim(t(hint), c)}\n`);
  return err.exitCode;
}

function hintOf(err: GshError, argv: readonly string[] | undefined): string | undefined {
  if (err instanceof OutcomeUnknownError && argv) {
    return `It may have been applied. Replay it safely within 24 hours (the service answers with the first outcome instead of acting twice):\n  ${replayCommand(argv, err.idempotencyKey)}`;
  }
  return err.hint ?? (err instanceof ApiError ? hintFor(err) : undefined);
}

/** The same command line with this Idempotency-Key, quoted for a POSIX shell. */
export function replayCommand(argv: readonly string[], key: string): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--idempotency-key') i++;
    else if (!a.startsWith('--idempotency-key=')) kept.push(a);
  }
  const quote = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);
  return ['gsh', ...kept, '--idempotency-key', key].map(quote).join(' ');
}

function hintFor(err: ApiError): string | undefined {
  if (err.storedFailure) {
    return `The service keeps this failure for the key for 24 hours, so the same key only gets it back. Check the state first${err.requestId ? ` (request_id ${err.requestId} names the original failure)` : ''}; trying again needs a new key (leave out --idempotency-key).`;
  }
  if (err.status === 401) return 'The credential was refused: run `gsh auth login`, or check GSH_API_KEY / GSH_TOKEN.';
  if (err.status === 403 && err.code === 'forbidden') return 'The key lacks the scope or server permission this needs; `gsh auth status` shows its scopes.';
  if (err.status === 429) return 'Rate limited after retries; try again later or raise the key\'s limit.';
  if (err.status >= 500) return 'The service kept failing after retries; try again later (--debug shows each attempt).';
  return undefined;
}
