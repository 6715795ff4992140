import { errorStream } from '../core/terminal/io.js';
import { readFileSync, statSync } from 'node:fs';
import { type Command, Option } from 'commander';
import type { Context } from '../core/run/context.js';
import { UsageError } from '../core/errors.js';
import { contextOf } from '../core/run/run-state.js';
import { readAll } from '../core/terminal/streams.js';
import { SIGNATURE_HEADER as SIGNATURE, signatureFromHeader, verifySignature } from '../core/wire/webhook-signature.js';
import type { OperationUses } from './hand-written.js';
import { offline } from './offline.js';

// `gsh hooks verify`: checks a webhook delivery's signature offline, for receiver scripts. The
// generated hooks commands (list, create, …) come from the registry; the contract has no
// operation that triggers a test delivery, so there is no `hooks test`.
//
// The secret never travels on argv (it would show in `ps` and shell history): it comes from
// GSH_WEBHOOK_SECRET or --secret-file. A hidden --secret exists only to refuse it without
// echoing the value (commander's unknown-option error would print `--secret=…` back).

const HELP = `
Reads the raw body of one delivery (standard input, or --payload FILE), recomputes its
HMAC-SHA256 under the hook's secret and compares it in constant time with the X-Service-Signature
value (sha256=<hex>). The secret comes from GSH_WEBHOOK_SECRET or --secret-file (the file's one
trailing newline is ignored), never from the command line.

Exit codes: 0 valid, 1 invalid (another body or secret, an empty or malformed signature),
2 usage (no secret, no signature flag, an unreadable file).

Examples:
  gsh hooks verify --signature "$HTTP_X_SERVICE_SIGNATURE" < body.json
  gsh hooks verify --payload body.json --header 'X-Service-Signature: sha256=…'
  gsh hooks verify --signature "$SIG" --secret-file hook.secret < body.json`;

interface VerifyFlags {
  payload?: string;
  signature?: string;
  header?: string;
  secretFile?: string;
  secret?: string;
}

interface VerifyPlan {
  secret: Buffer;
  secretFrom: string;
  signature: string;
  /** undefined: standard input. */
  payload?: string;
}

export function register(cmd: Command): void {
  cmd
    .command('verify')
    .description("Check a delivery's X-Service-Signature against its raw body (offline; exit 0 valid, 1 invalid)")
    .option('--payload <file>', 'the raw body as received (default: standard input)')
    .option('--signature <value>', 'the X-Service-Signature value: sha256=<hex>')
    .option('--header <line>', "the header line as received: 'X-Service-Signature: sha256=<hex>'")
    .option('--secret-file <file>', "file holding the hook's secret (default: $GSH_WEBHOOK_SECRET)")
    .addOption(new Option('--secret <value>').hideHelp())
    .addHelpText('after', HELP)
    .action(async function (this: Command) {
      const plan = planVerify(this.opts<VerifyFlags>(), contextOf(this));
      const body = plan.payload === undefined ? 'the body on standard input' : `the body in ${plan.payload}`;
      await offline(this, `check the ${SIGNATURE} of ${body} with the secret from ${plan.secretFrom}`, (ctx) => verify(plan, ctx));
    });
}

/** Every flag checked, the secret read and the payload file found, before anything is verified. */
function planVerify(flags: VerifyFlags, ctx: Context): VerifyPlan {
  if (flags.secret !== undefined) {
    throw new UsageError('the secret is never taken from the command line (ps and shell history would show it)', 'Set GSH_WEBHOOK_SECRET, or give --secret-file FILE.');
  }
  if (flags.signature !== undefined && flags.header !== undefined) throw new UsageError('give --signature or --header, not both');
  let signature = flags.signature;
  if (flags.header !== undefined) {
    signature = signatureFromHeader(flags.header);
    if (signature === undefined) throw new UsageError(`--header takes the ${SIGNATURE} header line`, `For example: --header '${SIGNATURE}: sha256=…'.`);
  }
  if (signature === undefined) {
    throw new UsageError(`no signature to check: give --signature VALUE or --header '${SIGNATURE}: VALUE'`, 'A receiver passes the header it got, e.g. --signature "$HTTP_X_SERVICE_SIGNATURE".');
  }
  const { secret, from } = readSecret(flags.secretFile, ctx.env);
  if (flags.payload !== undefined && flags.payload !== '-') checkReadable(flags.payload, '--payload');
  else if (ctx.stdin.isTTY) throw new UsageError('the body is read from standard input, which is a terminal', 'Pipe the raw body in (gsh hooks verify … < body.json), or give --payload FILE.');
  return { secret, secretFrom: from, signature, ...(flags.payload !== undefined && flags.payload !== '-' ? { payload: flags.payload } : {}) };
}

/** --secret-file beats GSH_WEBHOOK_SECRET (a flag typed on the command line beats the environment). */
function readSecret(file: string | undefined, env: Context['env']): { secret: Buffer; from: string } {
  let secret: Buffer;
  let from: string;
  if (file !== undefined) {
    checkReadable(file, '--secret-file');
    // One trailing newline is what `echo` or an editor leaves; it is not part of the secret.
    secret = stripNewline(readFileSync(file));
    from = file;
  } else if (env.GSH_WEBHOOK_SECRET !== undefined) {
    secret = Buffer.from(env.GSH_WEBHOOK_SECRET);
    from = 'GSH_WEBHOOK_SECRET';
  } else {
    throw new UsageError("no webhook secret: set GSH_WEBHOOK_SECRET or give --secret-file FILE", "The secret is returned once, by gsh hooks create (or the one you gave it).");
  }
  if (secret.length === 0) throw new UsageError(`the webhook secret in ${from} is empty`);
  return { secret, from };
}

function stripNewline(b: Buffer): Buffer {
  let end = b.length;
  if (end > 0 && b[end - 1] === 0x0a) end--;
  if (end > 0 && b[end - 1] === 0x0d) end--;
  return b.subarray(0, end);
}

function checkReadable(file: string, flag: string): void {
  try {
    if (!statSync(file).isFile()) throw new UsageError(`${flag} ${file}: not a regular file`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${flag} ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

async function verify(plan: VerifyPlan, ctx: Context): Promise<number> {
  const body = plan.payload === undefined ? await readAll(ctx.stdin) : readFileSync(plan.payload);
  const verdict = verifySignature(plan.secret, body, plan.signature);
  if (!verdict.valid) {
    errorStream(ctx.stderr).write(`gsh: invalid webhook signature: ${verdict.reason}\n`);
    return 1;
  }
  errorStream(ctx.stderr).write(`gsh: valid webhook signature (${body.length} bytes)\n`);
  return 0;
}

export const operations: OperationUses = { 'hooks verify': [] };
