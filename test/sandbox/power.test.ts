import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { call, until, withSandbox } from './helpers.js';

// 02-endpoints-part-a.md "Power": body field `signal`, 202 with power_state applied | queued |
// transferring, 400 unknown signal, 409 state conflict or action in progress.

// Tests that observe an intermediate state run slower so a loaded machine cannot skip it.
const SLOW = 0.3;

const status = async (sb: Sandbox, id: string) => (await call(sb, 'GET', `/servers/${id}/status`)).body.data;
const power = (sb: Sandbox, id: string, signal: unknown) => call(sb, 'POST', `/servers/${id}/power`, { body: { signal } });
const find = (sb: Sandbox, pred: (s: { startupQueue: boolean; stored: boolean; state: string }) => boolean) =>
  [...sb.state.servers.values()].find(pred)!.id;

describe('power state machine', () => {
  it('offline → starting → running, then running → stopping → offline', () =>
    withSandbox({ servers: 4, timeScale: SLOW }, async (sb) => {
      const id = find(sb, (s) => s.state === 'offline' && !s.startupQueue && !s.stored);
      const r = await power(sb, id, 'start');
      expect(r.status).toBe(202);
      expect(r.body.data.power_state).toBe('applied');
      expect((await status(sb, id)).state).toBe('starting');
      expect((await power(sb, id, 'start')).body.error.code).toBe('conflict');
      expect((await power(sb, id, 'stop')).status).toBe(409);
      await until(async () => (await status(sb, id)).state === 'running');
      expect((await power(sb, id, 'start')).status).toBe(409);
      expect((await power(sb, id, 'stop')).body.data.power_state).toBe('applied');
      expect((await status(sb, id)).state).toBe('stopping');
      await until(async () => (await status(sb, id)).state === 'offline');
      expect((await power(sb, id, 'stop')).status).toBe(409);
      expect(sb.state.powerActions.map((a) => a.signal)).toEqual(['start', 'stop']);
    }));

  it('restart leaves running and comes back; kill is immediate from any state', () =>
    withSandbox({ timeScale: SLOW }, async (sb) => {
      const id = find(sb, (s) => s.state === 'running');
      expect((await power(sb, id, 'restart')).status).toBe(202);
      expect((await status(sb, id)).state).toBe('stopping');
      await until(async () => (await status(sb, id)).state === 'running');
      expect((await power(sb, id, 'restart')).status).toBe(202);
      const k = await power(sb, id, 'kill');
      expect(k.body.data.power_state).toBe('applied');
      expect((await status(sb, id)).state).toBe('offline');
      // The cancelled restart must not bring it back.
      await new Promise((r) => setTimeout(r, 250));
      expect((await status(sb, id)).state).toBe('offline');
    }));

  it('a startup-queue node answers queued; a stored server answers transferring; both end running', () =>
    withSandbox({ servers: 4, timeScale: SLOW }, async (sb) => {
      const queued = find(sb, (s) => s.startupQueue && s.state === 'offline');
      const stored = find(sb, (s) => s.stored);
      expect((await power(sb, queued, 'start')).body.data.power_state).toBe('queued');
      expect((await call(sb, 'GET', `/servers/${queued}/console/queue-status`)).body.data.queued).toBe(true);
      expect((await power(sb, stored, 'start')).body.data.power_state).toBe('transferring');
      await until(async () => (await status(sb, queued)).state === 'running' && (await status(sb, stored)).state === 'running');
      expect((await call(sb, 'GET', `/servers/${queued}/console/queue-status`)).body.data.queued).toBe(false);
      expect(sb.state.servers.get(stored)!.stored).toBe(false);
    }));

  it('400 bad_request for a missing or unknown signal', () =>
    withSandbox({}, async (sb) => {
      const id = find(sb, () => true);
      for (const signal of ['reboot', undefined, 3]) {
        const r = await power(sb, id, signal);
        expect(r.status).toBe(400);
        expect(r.body.error.code).toBe('bad_request');
      }
      expect(sb.state.powerActions).toHaveLength(0);
    }));

  it('ad_required (403) for a free-plan server without a recent ad view, with action_url that records one', () =>
    withSandbox({}, async (sb) => {
      const s = [...sb.state.servers.values()].find((x) => x.state === 'offline' && !x.stored)!;
      s.adRequired = true;
      const r = await power(sb, s.id, 'start');
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('ad_required');
      expect((await fetch(r.body.error.action_url)).status).toBe(200);
      expect((await power(sb, s.id, 'start')).status).toBe(202);
    }));
});
