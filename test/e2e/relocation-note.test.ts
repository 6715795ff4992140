import { afterAll, beforeAll, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// Issue 46 item 9: the line a start prints for a stored server says what it means and why gsh
// waits. 02-endpoints-part-a.md "Power": 202 with power_state `transferring` "when a stored server
// first moves back to a runtime node"; the state is observed through GET /servers/{id}/status.

let t: E2E;
beforeAll(async () => {
  t = await setup({ servers: 4, clock: 'fast' });
});
afterAll(() => t.close());

it('power start --wait on a stored server explains the move back to a runtime node and the longer wait', async () => {
  const stored = [...t.sandbox.state.servers.values()].find((s) => s.stored);
  expect(stored).toBeDefined();
  const r = await t.gsh(['power', 'start', '-s', stored!.id, '--wait']);
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toContain('The server is stored, off any runtime node: the service answered power_state "transferring" and moves it back to one before it starts. That takes longer than a start, so gsh keeps waiting until it runs (Ctrl-C stops the wait, not the move).');
  expect(r.stderr).not.toContain('moving back to a runtime node first; waiting.');
});
