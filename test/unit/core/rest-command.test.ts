import { describe, expect, it } from 'vitest';
import { restCommand } from '../../../src/core/terminal/report.js';

// Issue 43 item 3: the line that runs a fleet's command on the servers it did not start.
describe('restCommand', () => {
  it('keeps the command and its flags, names only those servers, and drops the targets and any key', () => {
    expect(restCommand(['power', 'restart', '-s', 'lobby-*', '--wait', '--parallel', '8', '--yes', '-o', 'json'], ['a1', 'b2'])).toBe('gsh power restart --wait --parallel 8 --yes -o json -s id:a1,id:b2');
    expect(restCommand(['power', 'stop', '--all-servers', '--server=x', '-sy', '--idempotency-key', 'k', '--fail-fast'], ['a1'])).toBe('gsh power stop --fail-fast -s a1');
    expect(restCommand(['power', 'restart', '-s', 'a,b', '--announce', 'Restart in {left}', '--countdown', '5m,1m'], ['b'])).toBe("gsh power restart --announce 'Restart in {left}' --countdown 5m,1m -s b");
  });

  it('a server given as the argument is replaced, once', () => {
    expect(restCommand(['servers', 'get', 'lobby*', '-o', 'json'], ['c3'], 'lobby*')).toBe('gsh servers get -o json -s c3');
  });
});
