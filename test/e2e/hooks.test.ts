import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../sandbox/helpers.js';
import { type E2E, setup } from './helpers.js';

// Webhooks (02-endpoints-part-a.md "Webhooks"; 01-general-contract.md "Webhooks (per server)" and
// "Limits"): HMAC-signed deliveries to a local receiver (the sandbox-only allowLocalWebhooks
// switch; the contract itself allows only https to public addresses), deliveries newest first,
// high-frequency events only when subscribed, and disabling after 15 consecutive failures.

interface Received { headers: IncomingHttpHeaders; raw: Buffer }

let t: E2E;
let receiver: Server;
let base: string;
let status = 200;
const received: Received[] = [];

beforeAll(async () => {
  t = await setup({ servers: 5, clock: 'fast' });
  t.sandbox.families.allowLocalWebhooks(true);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => receiver.close(r));
});

const json = (r: { stdout: unknown }) => JSON.parse(String(r.stdout));
const offlineServer = () => [...t.sandbox.state.servers.values()].find((s) => s.state === 'offline' && !s.stored && !s.startupQueue)!;

/**
 * `hooks create` checks for https before sending (the contract's rule), so hooks aimed at the
 * local http receiver are made with `gsh api`, which sends the body as given.
 */
async function localHook(serverId: string, path: string, events: string[] = []): Promise<{ id: string; secret: string }> {
  const r = await t.gsh(['api', '-X', 'POST', `/servers/${serverId}/hooks`, '-f', `url=${base}${path}`, ...events.flatMap((e) => ['-f', `events[]=${e}`])]);
  expect(r.exitCode, String(r.stderr)).toBe(0);
  return json(r).data;
}

function verify(secret: string, r: Received): boolean {
  const want = Buffer.from(`sha256=${createHmac('sha256', secret).update(r.raw).digest('hex')}`);
  const got = Buffer.from(String(r.headers['x-service-signature']));
  return got.length === want.length && timingSafeEqual(got, want);
}

describe('deliveries', () => {
  it('power start delivers a signed server.started; deliveries list it newest first', async () => {
    const s = offlineServer();
    const hook = await localHook(s.id, '/ok', ['server.started', 'server.stopped']);
    expect(hook.secret).toMatch(/^whsec_/);
    const listed = json(await t.gsh(['hooks', 'list', '-s', s.id, '--json']));
    expect(listed[0]).not.toHaveProperty('secret');

    expect((await t.gsh(['power', 'start', '-s', s.id])).exitCode).toBe(0);
    const delivery = await until(() => received.find((r) => r.headers['x-service-event'] === 'server.started'));
    expect(verify(hook.secret, delivery)).toBe(true);
    expect(verify('whsec_wrong', delivery)).toBe(false);
    expect(delivery.headers['content-type']).toBe('application/json');
    const body = JSON.parse(delivery.raw.toString('utf8'));
    expect(body).toEqual({ event: 'server.started', server: { id: s.id }, occurred_at: expect.any(Number), data: {} });
    expect(Math.abs(body.occurred_at - Date.now() / 1000)).toBeLessThan(30);

    await until(() => t.sandbox.state.servers.get(s.id)!.state === 'running');
    expect((await t.gsh(['power', 'stop', '-s', s.id])).exitCode).toBe(0);
    await until(() => received.some((r) => r.headers['x-service-event'] === 'server.stopped'));
    const deliveries = json(await t.gsh(['hooks', 'deliveries', '-s', s.id, hook.id, '--json']));
    expect(deliveries.map((d: { event: string }) => d.event)).toEqual(['server.stopped', 'server.started']);
    expect(deliveries[0]).toMatchObject({ success: true, status_code: 200 });
  });

  it('high-frequency events go only to hooks that list them; backups emit backup.completed', async () => {
    const s = offlineServer();
    const all = await localHook(s.id, '/all');
    const players = await localHook(s.id, '/players', ['player.joined']);
    const emit = await fetch(`${t.sandbox.origin}/__sandbox/hooks/emit`, { method: 'POST', body: JSON.stringify({ server_id: s.id, event: 'player.joined', data: { name: 'Alex' } }) });
    expect(((await emit.json()) as { data: { deliveries_started: number } }).data.deliveries_started).toBe(1);
    expect((await t.gsh(['backups', 'create', '-s', s.id, '-f', 'name=nightly'])).exitCode).toBe(0);
    await until(() => received.some((r) => r.headers['x-service-event'] === 'backup.completed'));
    const deliveriesOf = async (id: string) => json(await t.gsh(['hooks', 'deliveries', '-s', s.id, id, '--json'])).map((d: { event: string }) => d.event);
    expect(await deliveriesOf(all.id)).toEqual(['backup.completed']);
    expect(await deliveriesOf(players.id)).toEqual(['player.joined']);
  });

  it('15 consecutive failures disable the hook; re-enabling clears the counter', async () => {
    const s = offlineServer();
    const hook = await localHook(s.id, '/down', ['server.crashed']);
    status = 500;
    try {
      // Each event is tried 3 times (two retries), so five events make 15 failed attempts.
      for (let i = 0; i < 5; i++) {
        await fetch(`${t.sandbox.origin}/__sandbox/hooks/emit`, { method: 'POST', body: JSON.stringify({ server_id: s.id, event: 'server.crashed' }) });
      }
      const disabled = await until(async () => {
        const h = json(await t.gsh(['hooks', 'list', '-s', s.id, '--json'])).find((x: { id: string }) => x.id === hook.id);
        return h.enabled === false ? h : undefined;
      }, 15_000);
      expect(disabled.consecutive_failures).toBe(15);
      const deliveries = json(await t.gsh(['hooks', 'deliveries', '-s', s.id, hook.id, '--limit', '100', '--json']));
      expect(deliveries).toHaveLength(15);
      expect(deliveries.every((d: { success: boolean; status_code: number }) => !d.success && d.status_code === 500)).toBe(true);
    } finally {
      status = 200;
    }
    const enabled = json(await t.gsh(['hooks', 'update', '-s', s.id, hook.id, '--enabled', '--json']));
    expect(enabled).toMatchObject({ enabled: true, consecutive_failures: 0 });
  }, 30_000);
});

describe('target vetting (02 "Webhooks": https only, no private or reserved address)', () => {
  it('refuses http and private targets once the sandbox-only switch is off', async () => {
    const s = offlineServer();
    t.sandbox.families.allowLocalWebhooks(false);
    try {
      for (const url of [`${base}/x`, 'https://127.0.0.1/x', 'https://10.1.2.3/x', 'https://169.254.169.254/latest']) {
        const r = await t.gsh(['api', '-X', 'POST', `/servers/${s.id}/hooks`, '-f', `url=${url}`]);
        expect(r.exitCode, url).not.toBe(0);
        expect(t.sandbox.log.at(-1)).toMatchObject({ status: 400, errorCode: 'bad_request' });
      }
      expect((await t.gsh(['hooks', 'create', '-s', s.id, '--url', 'https://hooks.example.com/x'])).exitCode).toBe(0);
    } finally {
      t.sandbox.families.allowLocalWebhooks(true);
    }
  });
});
