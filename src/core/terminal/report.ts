import { ApiError, Exit, GshError, InterruptedError, NetworkError, NotTheApiError, WaitStoppedError } from '../errors.js';
import { ansi, type Streams } from './io.js';
import { REPLAY_WINDOW_HOURS } from '../outcome.js';
import { redactSignedUrls } from '../redact.js';
import { shellLine } from '../shell-words.js';
import { forTerminal } from './terminal-text.js';

// Error lines (ARCHITECTURE.md "Exit codes"): the API's code, the HTTP status and the request_id,
// field errors one per line, and action_url when there is one; a JSON object on stderr under
// --json. A mutation's ending also says whether it acted (core/outcome.ts), with its key and the
// command that replays it.

/** The one error object of a single command's --json error and of a fleet entry. */
export interface ErrorObject {
  message: string;
  code: string | null;
  status: number | null;
  request_id: string | null;
  exit_code: number;
  /** applied, not_applied or unknown for a mutation; null for a command that changes nothing. */
  outcome: string | null;
  idempotency_key: string | null;
  /** The step that failed after the change was accepted (`wait`). */
  step?: string;
  [k: string]: unknown;
}

/** An error from gsh's own lookup of a server reference (core/fleet/server-ref.ts UnknownServerError). */
function isLookup(err: GshError): boolean {
  return (err as { lookup?: boolean }).lookup === true;
}

export function errorObject(err: unknown): ErrorObject {
  if (!(err instanceof GshError)) {
    const e = err as Error;
    return { message: String(e?.message ?? e), code: 'internal', status: null, request_id: null, exit_code: Exit.error, outcome: null, idempotency_key: null };
  }
  const api = err instanceof ApiError ? err : undefined;
  const code = api?.code ?? (err instanceof NetworkError ? (err.causeCode ?? 'network_error') : (err.code ?? null));
  return {
    message: redactSignedUrls(err.message),
    code,
    status: api?.status ?? null,
    request_id: api?.requestId ?? null,
    exit_code: err.exitCode,
    outcome: err.outcome ?? null,
    idempotency_key: err.idempotencyKey ?? null,
    ...(err.step ? { step: err.step } : {}),
    ...(err.resume ? { resume: err.resume } : {}),
    ...(err.forward ? { forward: err.forward } : {}),
  };
}

export function reportError(err: unknown, io: Streams, opts: { json: boolean; debug: boolean; argv?: readonly string[] }): number {
  // Messages carry the service's text (its error message, field names, a server's name): on a
  // terminal its control characters are shown before gsh colours the line (core/terminal/terminal-text.ts).
  const t = (s: string) => forTerminal(s, io.stderrTTY);
  if (!(err instanceof GshError)) {
    const e = err as Error;
    if (opts.json) io.stderr.write(`${JSON.stringify({ error: errorObject(err) })}\n`);
    else io.stderr.write(`gsh: internal error: ${t(String(e?.message ?? e))} (run with --debug and report it)\n`);
    if (opts.debug && e?.stack) io.stderr.write(`${e.stack}\n`);
    return Exit.error;
  }
  if (opts.json) {
    const base: Record<string, unknown> = errorObject(err);
    if (err instanceof ApiError) {
      Object.assign(base, {
        errors: err.fieldErrors.length ? err.fieldErrors : undefined,
        action_url: err.actionUrl, payment: err.body.payment, approval: err.body.approval,
      });
    }
    if (err instanceof ApiError && err.storedFailure) base.stored_failure = true;
    if (err instanceof WaitStoppedError) Object.assign(base, { under_way: err.underWay });
    const hint = hintOf(err, opts.argv);
    // The line the hint names to replay the change, as its own field (README "Outcomes"), as a fleet entry's.
    const replay = replayOf(err, opts.argv);
    if (replay) base.replay = replay;
    if (hint) base.hint = hint;
    io.stderr.write(`${JSON.stringify({ error: base })}\n`);
    return err.exitCode;
  }
  const c = io.colorErr;
  // A signed URL's signature is a credential: never in an error line.
  let line = `${ansi.red('error:', c)} ${t(redactSignedUrls(err.message))}`;
  // A lookup's 404 (server-ref.ts UnknownServerError) is gsh's finding, not the service refusing
  // the command: its status and request_id are under --debug only.
  if (err instanceof ApiError && !isLookup(err)) {
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
  return outcomeHint(err, argv) ?? withResume(err.hint ?? (err instanceof ApiError ? hintFor(err) : undefined), err.resume);
}

/** A hint that does not name the command resuming the wait gets it: every stopped wait says how to pick it up. */
function withResume(hint: string | undefined, resume: string | undefined): string | undefined {
  if (resume === undefined || hint?.includes(resume)) return hint;
  return `${hint ? `${hint}\n` : ''}Resume with:\n  ${resume}`;
}

/**
 * What a person needs after a mutation that may have acted: that it may have (or did), its key,
 * and the command to run next: the replay (the same line with the key, which gets the stored
 * answer instead of acting again), or the `gsh wait` that resumes a wait the change started.
 */
export function outcomeHint(err: GshError, argv: readonly string[] | undefined): string | undefined {
  const key = err.idempotencyKey;
  if (key === undefined || (err.outcome !== 'unknown' && err.outcome !== 'applied')) return undefined;
  // A stored 5xx comes back for the key: its own hint (a new key, after checking) is the next step.
  if (err instanceof ApiError && err.storedFailure) return `Outcome unknown (Idempotency-Key ${key}). ${hintFor(err)}`;
  const replay = argv ? `:\n  ${replayCommand(argv, key)}` : ` with --idempotency-key ${key}.`;
  const window = `within ${REPLAY_WINDOW_HOURS} hours (the service answers with the first outcome instead of acting twice)`;
  // The service accepted the change and its answer was cut: the replay gets the stored answer.
  // Interrupted once the service had accepted the change, before its answer was read: the same.
  if (err.outcome === 'applied' && !err.step && err instanceof InterruptedError) {
    return `The change was applied (Idempotency-Key ${key}); the interrupt came before its answer was read. Replay it safely ${window} to get the answer${replay}`;
  }
  // A 2xx whose body was cut or is not the API's (malformed JSON): applied, its answer missing.
  if (err.outcome === 'applied' && !err.step && (err instanceof NetworkError || (err instanceof NotTheApiError && err.status < 300))) {
    return `The change was applied (Idempotency-Key ${key}) but its answer did not arrive whole. Replay it safely ${window} to get the answer${replay}`;
  }
  // Accepted, then something after it failed (a wait, a download): that failure's own next step.
  if (err.outcome === 'applied') {
    const next = withResume(err.hint, err.resume) ?? '';
    return `The change was applied (Idempotency-Key ${key})${err.step ? `; the ${err.step} did not finish` : ''}. ${next}`.trim();
  }
  return `It may have been applied (Idempotency-Key ${key}). Replay it safely ${window}${replay}`;
}

/**
 * The replay command outcomeHint names, when it names one: a change that may have acted
 * (`unknown`), or that was applied and whose answer an interrupt or a cut body lost. One that was
 * applied and then failed a later step resumes that step instead (`resume`).
 */
export function replayOf(err: GshError, argv: readonly string[] | undefined): string | undefined {
  const key = err.idempotencyKey;
  if (key === undefined || !argv || (err instanceof ApiError && err.storedFailure)) return undefined;
  const answerLost = err.outcome === 'applied' && !err.step && (err instanceof InterruptedError || err instanceof NetworkError || (err instanceof NotTheApiError && err.status < 300));
  return err.outcome === 'unknown' || answerLost ? replayCommand(argv, key) : undefined;
}

/** The same command line with this Idempotency-Key, quoted for a POSIX shell. */
export function replayCommand(argv: readonly string[], key: string): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--idempotency-key') i++;
    else if (!a.startsWith('--idempotency-key=')) kept.push(a);
  }
  return shellLine(['gsh', ...kept, '--idempotency-key', key]);
}

/** The rollout flags with a value (core/fleet/rollout.ts): a fleet's, not one server's. */
const FLEET_VALUE_FLAGS: ReadonlySet<string> = new Set(['--batch', '--pause', '--max-fail', '--shard', '--rate-share', '--journal', '--resume']);

/**
 * One fleet target's replay: the command line with its targets (-s, --all-servers, a server
 * argument) replaced by that server's id, the fleet's own flags left out, and its key.
 */
export function targetReplayCommand(argv: readonly string[], serverId: string, key: string, serverArgument?: string): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '-s' || a === '--server' || a === '--parallel' || FLEET_VALUE_FLAGS.has(a)) i++;
    else if (a === '--all-servers' || a === '--fail-fast' || /^(-s.|--server=|--parallel=)/.test(a) || FLEET_VALUE_FLAGS.has(a.split('=')[0] as string)) continue;
    else if (serverArgument !== undefined && a === serverArgument) serverArgument = undefined;
    else kept.push(a);
  }
  return replayCommand([...kept, '-s', serverId], key);
}

/**
 * The command that runs a fleet's command on the servers it did not start (issue 43 item 3): the
 * line as typed with its targets (-s, --all-servers, a server argument) replaced by those ids,
 * without --idempotency-key (each server gets a new key: none of these was sent) and without
 * --shard (kept as its --rate-share). Its own flags (--parallel, --fail-fast, --batch, --wait,
 * --announce…) are kept.
 */
export function restCommand(argv: readonly string[], serverIds: readonly string[], serverArgument?: string): string {
  const kept: string[] = [];
  const shares = argv.some((a) => a === '--rate-share' || a.startsWith('--rate-share='));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    // The ids name the servers left: a shard would cut them again, so only its share of the rate limit stays.
    const shard = a === '--shard' ? argv[++i] : a.startsWith('--shard=') ? a.slice(8) : undefined;
    if (shard !== undefined) {
      if (!shares && /^\d+\/\d+$/.test(shard)) kept.push('--rate-share', `1/${shard.split('/')[1]}`);
    } else if (a === '-s' || a === '--server' || a === '--idempotency-key') i++;
    else if (a === '--all-servers' || /^(-s.|--server=|--idempotency-key=)/.test(a)) continue;
    else if (serverArgument !== undefined && a === serverArgument) serverArgument = undefined;
    else kept.push(a);
  }
  return shellLine(['gsh', ...kept, '-s', serversArg(serverIds)]);
}

/**
 * The servers a printed line names, so that running it costs no listing (issue 50): one id as it
 * is (gsh remembers every id it resolved for a day, README "Remembered servers", so it is not
 * looked up again), several as `id:…` each, which a fleet takes as they are instead of listing
 * the servers to find them (ARCHITECTURE.md "Command grammar").
 */
export function serversArg(ids: readonly string[]): string {
  if (ids.length < 2) return ids.join(',');
  return ids.map((id) => (id.startsWith('id:') ? id : `id:${id}`)).join(',');
}

function hintFor(err: ApiError): string | undefined {
  if (err.storedFailure) {
    return `The service keeps this failure for the key for 24 hours, so the same key only gets it back. Check the state first${err.requestId ? ` (request_id ${err.requestId} names the original failure)` : ''}; trying again needs a new key (leave out --idempotency-key).`;
  }
  if (err.status === 401) return 'The credential was refused: run `gsh auth login`, or check GSH_API_KEY / GSH_TOKEN.';
  if (err.status === 403 && err.code === 'forbidden') return 'The key lacks the scope or server permission this needs; `gsh auth status` shows its scopes.';
  if (err.status === 429) return 'Rate limited after retries; try again later or raise the key\'s limit.';
  if (err.status === 501) return 'The service does not implement this (501), so gsh did not retry it.';
  if (err.status >= 500) return 'The service kept failing after retries; try again later (--debug shows each attempt).';
  return undefined;
}
