import { onTestFinished } from 'vitest';
import type { RequestLogEntry } from '../../src/sandbox/index.js';

// Declared requests, checked against the sandbox's request log (the counterpart of gh's httpmock
// Registry.Verify and undici's MockAgent.assertNoPendingInterceptors): a test names the requests it
// expects before running gsh, and fails when one was never made, was made another number of times,
// or (`only`) when anything undeclared was sent. The check covers what was sent from the declaration
// to verify(), or to the end of the test when verify() is not called: a test cannot forget it.

export interface DeclaredRequest {
  method: string;
  /** The path relative to /api/v2, without the query; a RegExp must match the whole of it. */
  path: string | RegExp;
  /** Query values the request must carry (others may come too). */
  query?: Record<string, string>;
  /** Exactly this many (default: at least one). 0 declares a request that must not be made. */
  times?: number;
}

export interface RequestExpectations {
  /** Ends the watch and throws when what was sent since the declaration does not meet it. */
  verify(): void;
}

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const matches = (d: DeclaredRequest, e: RequestLogEntry): boolean =>
  e.method === d.method &&
  (typeof d.path === 'string' ? e.path === d.path : new RegExp(`^(?:${d.path.source})$`, d.path.flags).test(e.path)) &&
  Object.entries(d.query ?? {}).every(([k, v]) => e.query[k] === v);

const describe = (d: DeclaredRequest): string =>
  `${d.method} ${d.path}${d.query ? `?${new URLSearchParams(d.query)}` : ''}${d.times !== undefined ? ` ×${d.times}` : ''}`;

/**
 * Declares the requests the rest of the test must send to `sandbox`. `only: 'mutations'` also fails
 * on an undeclared POST/PUT/PATCH/DELETE; `only: 'all'` on any undeclared request.
 */
export function expectRequests(
  sandbox: { log: readonly RequestLogEntry[] },
  declared: DeclaredRequest[],
  opts: { only?: 'mutations' | 'all' } = {},
): RequestExpectations {
  const mark = sandbox.log.length;
  let verified = false;
  const verify = () => {
    verified = true;
    const sent = sandbox.log.slice(mark);
    const problems: string[] = [];
    for (const d of declared) {
      const n = sent.filter((e) => matches(d, e)).length;
      if (d.times === undefined ? n === 0 : n !== d.times) problems.push(`${describe(d)}: sent ${n} time(s)`);
    }
    if (opts.only) {
      for (const e of sent) {
        if (opts.only === 'mutations' && !MUTATIONS.has(e.method)) continue;
        if (!declared.some((d) => matches(d, e))) problems.push(`undeclared ${e.method} ${e.path} was sent`);
      }
    }
    if (problems.length) {
      const lines = sent.map((e) => `  ${e.method} ${e.path}${Object.keys(e.query).length ? `?${new URLSearchParams(e.query as Record<string, string>)}` : ''} → ${e.status}`);
      throw new Error(`request expectations not met:\n  ${problems.join('\n  ')}\nsent:\n${lines.join('\n') || '  (nothing)'}`);
    }
  };
  onTestFinished(() => {
    if (!verified) verify();
  });
  return { verify };
}
