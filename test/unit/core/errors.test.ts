import { describe, expect, it } from 'vitest';
import { exitCodeForApi, Exit } from '../../../src/core/errors.js';
import { toApiError } from '../../../src/core/wire/http.js';

// ARCHITECTURE.md "Exit codes" against 01-general-contract.md "Errors".
describe('exit codes for API errors', () => {
  const cases: [number, string, number][] = [
    [400, 'bad_request', Exit.error],
    [401, 'unauthorized', Exit.auth],
    [402, 'insufficient_funds', Exit.personMustAct],
    [403, 'forbidden', Exit.permission],
    [403, 'ad_required', Exit.personMustAct],
    [403, 'approval_required', Exit.personMustAct],
    [404, 'not_found', Exit.notFound],
    [409, 'idempotency_conflict', Exit.conflict],
    [409, 'limit_reached', Exit.conflict],
    [422, 'validation_failed', Exit.error],
    [429, 'rate_limit_exceeded', Exit.rateLimited],
    [500, 'internal_error', Exit.unavailable],
    [503, 'service_unavailable', Exit.unavailable],
  ];
  it.each(cases)('%i %s → %i', (status, code, exit) => {
    expect(exitCodeForApi(status, code)).toBe(exit);
  });

  it('reads the envelope, and makes one when a gateway answered with HTML', () => {
    const e = toApiError({
      status: 422, headers: { 'x-request-id': 'req_h' }, requestId: 'req_h', replayed: false, idempotencyKey: undefined,
      body: { error: { code: 'validation_failed', message: 'bad', errors: [{ field: 'name', message: 'required' }], action_url: 'https://x' }, request_id: 'req_b' },
    });
    expect(e).toMatchObject({ code: 'validation_failed', status: 422, requestId: 'req_b', actionUrl: 'https://x' });
    expect(e.fieldErrors).toEqual([{ field: 'name', message: 'required' }]);
    const g = toApiError({ status: 502, headers: {}, requestId: undefined, replayed: false, idempotencyKey: undefined, body: '<html>bad gateway</html>' });
    expect(g).toMatchObject({ code: 'http_502', status: 502, exitCode: Exit.unavailable });
  });
});
