import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

// Test helpers: each test starts its own sandbox on port 0 (parallel-safe) and closes it.

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function call(
  sb: Sandbox,
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const key = opts.key === undefined ? sb.keys.all : opts.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(sb.baseUrl + path, { method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Polls `fn` until it returns a truthy value (or fails after `timeoutMs`). */
export async function until<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Starts a fast sandbox (timeScale 0.02) for one test body and always closes it. */
export async function withSandbox<T>(opts: SandboxOptions, fn: (sb: Sandbox) => Promise<T>): Promise<T> {
  const sb = await startSandbox({ timeScale: 0.02, ...opts });
  try {
    return await fn(sb);
  } finally {
    await sb.close();
  }
}

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export function serverIds(sb: Sandbox): string[] {
  return [...sb.state.servers.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).map((s) => s.id);
}
