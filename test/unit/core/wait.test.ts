import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/core/wire/http.js';
import { Runtime } from '../../../src/core/run/runtime.js';
import { UNSEEN_RESTART_MS, waitForBackup, waitForServerState, waitForJob } from '../../../src/core/fleet/wait.js';
import { Exit } from '../../../src/core/errors.js';
import { testContext } from '../../helpers/context.js';

// ARCHITECTURE.md "Requests": --wait follows a job or status resource to a terminal state.
function fakeClient(bodies: unknown[]): ApiClient & { calls: number } {
  let i = 0;
  const c = {
    calls: 0,
    async request() {
      c.calls++;
      const body = bodies[Math.min(i++, bodies.length - 1)];
      return { status: 200, headers: {}, body: { data: body }, requestId: 'r', replayed: false, idempotencyKey: undefined };
    },
  };
  return c as unknown as ApiClient & { calls: number };
}

const rt = (timeout?: string) => new Runtime({ ...(timeout ? { timeout } : {}) }, testContext());
const noSleep = { sleep: async () => undefined };

describe('waitForServerState', () => {
  it('a restart must be seen leaving running before running counts', async () => {
    const client = fakeClient([{ state: 'running' }, { state: 'stopping' }, { state: 'starting' }, { state: 'running' }]);
    const s = await waitForServerState(rt(), client, 'a', 'running', { mustLeave: 'running', ...noSleep });
    expect(s.state).toBe('running');
    expect(client.calls).toBe(4);
  });

  it('a restart too quick to see ends the wait after a bounded time, not at --timeout', async () => {
    let t = 0;
    const client = fakeClient([{ state: 'running' }]);
    const s = await waitForServerState(rt(), client, 'a', 'running', { mustLeave: 'running', now: () => t, sleep: async () => void (t += 1000) });
    expect(s.state).toBe('running');
    expect(client.calls).toBe(UNSEEN_RESTART_MS / 1000 + 1);
  });

  it('reinstall: settled once lifecycle_status clears', async () => {
    const client = fakeClient([{ state: 'offline', lifecycle_status: 'reinstalling' }, { state: 'offline' }]);
    expect((await waitForServerState(rt(), client, 'a', 'settled', noSleep)).lifecycle_status).toBeUndefined();
  });
});

describe('waitForJob (01-general-contract.md "States and transitions": job states)', () => {
  it('partial succeeds; failed and timed_out exit 1', async () => {
    expect((await waitForJob(rt(), fakeClient([{ state: 'running' }, { state: 'partial', warnings: ['w'] }]), '/j')).state).toBe('partial');
    for (const state of ['failed', 'timed_out']) {
      await expect(waitForJob(rt(), fakeClient([{ state }]), '/j')).rejects.toMatchObject({ exitCode: Exit.error });
    }
  });

  it('running out of --timeout exits 10', async () => {
    await expect(waitForJob(rt('1ms'), fakeClient([{ state: 'running' }]), '/j')).rejects.toMatchObject({ exitCode: Exit.timedOut });
  });
});

describe('a wait that cannot tell (issue 27)', () => {
  it('a record without the field the wait reads ends after the first read with exit 12, naming what it holds and the request to check by hand', async () => {
    const client = fakeClient([{ object: 'thing_job', job_id: 'j1' }, { state: 'completed' }]);
    const err = await waitForJob(rt(), client, '/jobs/j1').catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: Exit.cannotTell });
    expect((err as Error).message).toBe('cannot tell when job ends: its record holds object, job_id, and none of state, which gsh reads');
    expect((err as { hint: string }).hint).toContain('gsh api /jobs/j1');
    expect(client.calls).toBe(1);
    await expect(waitForServerState(rt(), fakeClient([{ node_ready: true }]), 's1', 'running', noSleep)).rejects.toMatchObject({ exitCode: Exit.cannotTell });
  });

  it('a backup whose record shows neither a status word nor completed_at: exit 12 at once; with one it is followed', async () => {
    const bare = fakeClient([{ object: 'server_backup', id: 'b1', name: 'n' }]);
    await expect(waitForBackup(rt(), bare, '/servers/s/backups/b1')).rejects.toMatchObject({ exitCode: Exit.cannotTell });
    expect(bare.calls).toBe(1);
    const worded = fakeClient([{ status: 'in_progress' }, { status: 'completed' }]);
    expect(await waitForBackup(rt(), worded, '/b')).toMatchObject({ status: 'completed' });
  });
});
