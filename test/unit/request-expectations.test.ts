import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/sandbox/index.js';
import { expectRequests } from '../helpers/request-expectations.js';

// The request expectation helper (test/helpers/request-expectations.ts) itself: it must fail a test
// when a declared request is missing, sent another number of times, or something undeclared is sent.

let seq = 0;
const entry = (method: string, path: string, query: Record<string, string> = {}): RequestLogEntry =>
  ({ seq: ++seq, at: '', method, path, query, status: 200, requestId: `r${seq}`, replayed: false });
const log = (...entries: RequestLogEntry[]) => ({ log: entries });

describe('expectRequests', () => {
  it('fails when a declared request was not made (nor with another method), passes when it was', () => {
    const none = log(entry('GET', '/servers'));
    const missing = expectRequests(none, [{ method: 'POST', path: '/servers/a/power' }]);
    none.log.push(entry('GET', '/servers/a/power'));
    expect(() => missing.verify()).toThrow(/POST \/servers\/a\/power: sent 0 time\(s\)/);
    const some = log();
    const made = expectRequests(some, [{ method: 'POST', path: '/servers/a/power' }]);
    some.log.push(entry('POST', '/servers/a/power'), entry('POST', '/servers/a/power'));
    made.verify();
  });

  it('counts exactly with times, matches paths by RegExp and queries by subset', () => {
    const declared = [
      { method: 'GET', path: '/servers', query: { include: 'status' }, times: 2 },
      { method: 'GET', path: /\/servers\/[^/]+\/status/, times: 0 },
    ];
    const once = log();
    const a = expectRequests(once, declared);
    once.log.push(entry('GET', '/servers', { include: 'status', limit: '100' }), entry('GET', '/servers'));
    expect(() => a.verify()).toThrow(/include=status ×2: sent 1 time/);
    const polled = log();
    const b = expectRequests(polled, declared);
    polled.log.push(entry('GET', '/servers', { include: 'status' }), entry('GET', '/servers', { include: 'status' }), entry('GET', '/servers/a/status'));
    expect(() => b.verify()).toThrow(/\/status.* ×0: sent 1 time/);
    const good = log();
    const c = expectRequests(good, declared);
    good.log.push(entry('GET', '/servers', { include: 'status' }), entry('GET', '/servers', { include: 'status', page: '2' }), entry('GET', '/servers/a'));
    c.verify();
  });

  it('only: "mutations" fails on an undeclared mutation, not a read; only: "all" on any undeclared request', () => {
    const reads = log();
    const mutations = expectRequests(reads, [], { only: 'mutations' });
    const all = expectRequests(reads, [], { only: 'all' });
    reads.log.push(entry('GET', '/servers'));
    mutations.verify();
    expect(() => all.verify()).toThrow(/undeclared GET \/servers was sent/);
    const deleted = log();
    const x = expectRequests(deleted, [{ method: 'GET', path: '/servers' }], { only: 'mutations' });
    deleted.log.push(entry('GET', '/servers'), entry('DELETE', '/servers/a'));
    expect(() => x.verify()).toThrow(/undeclared DELETE \/servers\/a was sent/);
  });

  it('counts only what was sent after the declaration and before verify()', () => {
    const sandbox = log(entry('POST', '/servers/a/power'));
    const before = expectRequests(sandbox, [{ method: 'POST', path: '/servers/a/power', times: 1 }], { only: 'all' });
    expect(() => before.verify()).toThrow(/sent 0 time/);
    const window = expectRequests(sandbox, [{ method: 'POST', path: '/servers/a/power', times: 1 }], { only: 'all' });
    sandbox.log.push(entry('POST', '/servers/a/power'));
    window.verify();
    sandbox.log.push(entry('DELETE', '/servers/a'));
  });
});
