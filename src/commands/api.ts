import { basename } from 'node:path';
import type { Command } from 'commander';
import { ApiError, UsageError } from '../core/errors.js';
import { collect, parseFields, readInputBody, stdinFor } from '../core/flags/fields.js';
import { type ApiClient, type Method, type QueryValue, refuseDotSteps, type RequestSpec, withIdempotencyKey } from '../core/wire/http.js';
import { describeTarget, planTarget, saveBody } from '../core/transfer/download.js';
import { fetchAll } from '../core/wire/paging.js';
import { step } from '../core/plan.js';
import { type Runtime, withRuntime } from '../core/run/runtime.js';

// `gsh api <path>`: any request, through the same core as every command (auth, retries,
// idempotency, errors, exit codes). Modelled on gh api.

const HELP = `
The method is GET, or POST when fields or --input are given; -X overrides it. For GET, fields
become query parameters. The response body is printed as is; --paginate follows limit/offset
pages and prints one merged array of every page's data.

Examples:
  $ gsh api /me
  $ gsh api '/servers?search=lobby'
  $ gsh api /servers/abc/power -f signal=restart
  $ gsh api -X PATCH /servers/abc/settings -F auto_stop=true -f 'motd[line1]=Welcome'
  $ gsh api /servers --paginate
  $ gsh api /servers/abc/power -f signal=restart --dry-run   # the request, not sent
  $ echo '{"name":"x"}' | gsh api /init/templates --input -
  $ gsh api /servers --to servers.json     # the body streamed to a file, any size

An answer printed to stdout is read into memory first, up to 64 MiB (GSH_MAX_RESPONSE_BYTES);
a larger one fails with a clear message. --to FILE streams a successful body of any size to the
file (through a temporary file, renamed at the end; --clobber replaces one, keeping its mode).
`;

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

export function register(api: Command): void {
  api
    .argument('<path>', 'path relative to the base URL, e.g. /servers or servers?search=x')
    .option('-X, --method <method>', 'HTTP method')
    .option('-f, --raw-field <key=value>', 'string field (repeatable; a[b]= and a[]= nest)', collect)
    .option('-F, --field <key=value>', 'typed field: true/false/null/numbers, @file, @- (repeatable)', collect)
    .option('--input <file>', 'request body from a file, or - for stdin')
    .option('-H, --header <name:value>', 'extra request header (repeatable)', collect)
    .option('-i, --include', 'print the status line and response headers before the body')
    .option('--paginate', 'fetch every page and print one merged array of data')
    .option('--to <file|dir|->', 'stream a successful response body, unparsed and of any size, to this file, into this directory, or - for stdout')
    .option('--clobber', 'with --to: replace an existing file (it keeps its mode)')
    .addHelpText('after', HELP)
    .action(async function (this: Command, rawPath: string) {
      await withRuntime(this, async (rt) => {
        const o = this.opts<ApiFlags>();
        const { spec, paginate, client } = await plan(rt, rawPath, o);
        const target = planTarget(o.to, o.clobber === true);
        if (target && (paginate || o.include)) throw new UsageError(`--to saves one body as it comes: it does not combine with ${paginate ? '--paginate' : '--include'}`);
        const then = paginate ? [step('page', 'follow limit/offset pages and print one merged array of data')] : target ? [step('transfer', describeTarget(target, o.to!, 'stream the response body'))] : [];
        return rt.submit({ requests: [spec], then }, async () => {
          if (paginate) {
            const { items } = await fetchAll(client, spec);
            rt.io.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
            return;
          }
          try {
            if (target) {
              const got = await saveBody(rt, client, spec, target, { fallbackName: basename(spec.path) || 'response' });
              if (got.path) rt.note(`Saved ${got.bytes} bytes to ${got.path}`);
              return;
            }
            const res = await client.request(spec);
            // The service's bytes: on a terminal its escape sequences show as text, colours too.
            const out = rt.io.serviceStdout;
            if (o.include) {
              out.write(`HTTP ${res.status}\n`);
              for (const [k, v] of Object.entries(res.headers)) out.write(`${k}: ${v}\n`);
              out.write('\n');
            }
            printBody(out, res.body);
          } catch (err) {
            // Like gh api: the service's body, exactly as it came, goes to stdout for scripts (nothing
            // when there was none); gsh's own error line goes to stderr.
            if (err instanceof ApiError) printBody(rt.io.stdout, err.responseBody);
            throw err;
          }
        });
      });
    });
}

interface ApiFlags {
  method?: string;
  rawField?: string[];
  field?: string[];
  input?: string;
  header?: string[];
  include?: boolean;
  paginate?: boolean;
  to?: string;
  clobber?: boolean;
}

/** Every flag checked and the request built before anything is sent. */
async function plan(rt: Runtime, rawPath: string, o: ApiFlags): Promise<{ spec: RequestSpec; paginate: boolean; client: ApiClient }> {
  const stdin = await stdinFor([o.input, o.field ?? []], () => rt.ctx.stdin);
  const fields = parseFields({ raw: o.rawField, typed: o.field, readStdin: () => stdin.take() });
  const hasFields = Object.keys(fields).length > 0;
  const method = (o.method?.toUpperCase() ?? (hasFields || o.input !== undefined ? 'POST' : 'GET')) as Method;
  if (!METHODS.has(method)) throw new UsageError(`unsupported method ${o.method}`, 'Use GET, POST, PUT, PATCH or DELETE.');
  if (o.paginate && method !== 'GET') throw new UsageError('--paginate works with GET');
  if (method === 'GET' && o.input !== undefined) throw new UsageError('--input needs a method with a body (-X POST, PUT or PATCH)');
  const headers: Record<string, string> = {};
  for (const h of o.header ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) throw new UsageError(`-H expects "Name: value", got "${h}"`);
    headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }
  const base = o.input !== undefined ? readInputBody(o.input, stdin) : undefined;
  const client = await rt.client();
  const { path, query } = splitPath(rawPath, client.baseUrl);
  const spec: RequestSpec = { method, path, query, headers, idempotencyKey: rt.globals.idempotencyKey };
  if (method === 'GET') {
    for (const [k, v] of Object.entries(fields)) query[k] = Array.isArray(v) ? v.map(String) : typeof v === 'object' && v !== null ? JSON.stringify(v) : (v as QueryValue);
  } else if (base !== undefined) {
    spec.body = hasFields && base && typeof base === 'object' && !Array.isArray(base) ? { ...base, ...fields } : base;
  } else if (hasFields) {
    spec.body = fields;
  }
  return { spec: await withIdempotencyKey(spec), paginate: o.paginate === true, client };
}

function printBody(out: { write(s: string): unknown }, body: unknown): void {
  if (body === undefined) return;
  out.write(typeof body === 'string' ? body.replace(/\n?$/, '\n') : `${JSON.stringify(body, null, 2)}\n`);
}

/** Accepts `servers?x=1`, `/servers`, and paths that repeat the base URL's own path (`/api/v2/…`). */
export function splitPath(raw: string, baseUrl: string): { path: string; query: Record<string, QueryValue> } {
  if (/^https?:\/\//.test(raw)) throw new UsageError('give a path relative to the base URL, not a full URL');
  refuseDotSteps(raw);
  const url = new URL(raw.startsWith('/') ? raw : `/${raw}`, 'http://x');
  let path = url.pathname;
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  if (basePath && (path === basePath || path.startsWith(`${basePath}/`))) path = path.slice(basePath.length) || '/';
  const query: Record<string, QueryValue> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    query[key] = all.length > 1 ? all : all[0];
  }
  return { path, query };
}
