import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveAuth, staticCredential } from '../../../src/core/auth/credentials.js';
import { NetworkError } from '../../../src/core/errors.js';
import { ApiClient, withIdempotencyKey } from '../../../src/core/wire/http.js';
import { decideRetry } from '../../../src/core/wire/retry.js';
import { fileStore } from '../../../src/core/auth/store.js';

// Issue 11 (plan before request) at the level of the core pieces the planner uses.

const dir = mkdtempSync(join(tmpdir(), 'gsh-plan-core-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('credential precedence (ARCHITECTURE.md "Auth store": an explicit --profile > GSH_TOKEN/GSH_API_KEY > GSH_PROFILE > current)', () => {
  const env = { GSH_CONFIG_DIR: dir, GSH_API_KEY: 'env-key', GSH_BASE_URL: 'http://127.0.0.1:1/api/v2' };
  const store = fileStore(env);
  const newClient = (baseUrl: string) => new ApiClient({ baseUrl });

  it('--profile beats GSH_API_KEY, and says so', async () => {
    await store.update((d) => (d.profiles.ci = { base_url: env.GSH_BASE_URL, api_key: 'profile-key' }));
    const r = await resolveAuth({ profileFlag: 'ci', env, store, newClient });
    expect(await r.credential?.bearer()).toBe('profile-key');
    expect(r.source).toContain('profile "ci"');
    expect(r.chosenBy).toMatch(/--profile .*beats GSH_API_KEY/);
  });

  it('without --profile the environment wins over GSH_PROFILE', async () => {
    const r = await resolveAuth({ env: { ...env, GSH_PROFILE: 'ci' }, store, newClient });
    expect(await r.credential?.bearer()).toBe('env-key');
    expect(r.chosenBy).toMatch(/^GSH_API_KEY/);
  });

  it('an unknown --profile is a usage error even when GSH_API_KEY is set', async () => {
    await expect(resolveAuth({ profileFlag: 'nope', env, store, newClient })).rejects.toMatchObject({ exitCode: 2 });
  });
});

describe('a request as planned', () => {
  const client = new ApiClient({ baseUrl: 'http://127.0.0.1:1/api/v2', credential: { source: 't', bearer: async () => 'SECRET' } });

  it('shows the wire form with the credential redacted and secret body fields masked', async () => {
    const spec = await withIdempotencyKey({ method: 'POST', path: '/hooks', query: { a: 1 }, body: { url: 'https://x', secret: 'shh' } });
    const r = client.describe(spec);
    expect(r).toMatchObject({ method: 'POST', url: 'http://127.0.0.1:1/api/v2/hooks?a=1', body: { url: 'https://x', secret: '[redacted]' } });
    expect(r.headers.authorization).toBe('Bearer [redacted]');
    expect(r.headers['idempotency-key']).toBe(spec.idempotencyKey);
    expect(JSON.stringify(r)).not.toContain('SECRET');
  });

  it('fixes a mutation key at planning time and keeps a given one; reads carry none', async () => {
    const a = await withIdempotencyKey({ method: 'DELETE', path: '/x' });
    expect(a.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect((await withIdempotencyKey({ method: 'PUT', path: '/x', idempotencyKey: 'k1' })).idempotencyKey).toBe('k1');
    expect((await withIdempotencyKey({ method: 'GET', path: '/x', idempotencyKey: 'k1' })).idempotencyKey).toBeUndefined();
    await expect(withIdempotencyKey({ method: 'POST', path: '/x', idempotencyKey: 'é' })).rejects.toMatchObject({ exitCode: 2 });
  });

  it('signed node URLs get no bearer', () => {
    expect(client.describe({ method: 'GET', path: 'https://node.example/dl?sig=1' }).headers.authorization).toBeUndefined();
  });
});

describe('refused connections fail fast (issue 11: exit 9 within 5 s)', () => {
  /** The pauses the client asks its injected sleep for, retrying a request to a port nothing listens on. */
  async function refusedSleeps(random: () => number, retries?: number): Promise<number[]> {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const sleeps: number[] = [];
    const client = new ApiClient({
      baseUrl: `http://127.0.0.1:${port}/api/v2`, credential: staticCredential('k', 'test'),
      sleep: async (ms) => void sleeps.push(ms), random, ...(retries !== undefined ? { retries } : {}),
    });
    try {
      await expect(client.request({ method: 'GET', path: '/me' })).rejects.toBeInstanceOf(NetworkError);
    } finally {
      await client.close();
    }
    return sleeps;
  }

  it('back off at a fifth of the contract pace (0.2, 0.4, 0.8, 1.6 s, ±25 % jitter), so the default four retries stay under 5 s', async () => {
    expect(await refusedSleeps(() => 0.5)).toEqual([200, 400, 800, 1600]);
    expect(await refusedSleeps(() => 0)).toEqual([150, 300, 600, 1200]);
    const top = await refusedSleeps(() => 0.999999);
    expect(top).toEqual([250, 500, 1000, 2000]);
    expect(top.reduce((a, b) => a + b, 0)).toBeLessThan(5000);
    // Capped like the contract's schedule: 30 s at a fifth.
    expect(await refusedSleeps(() => 0.5, 7)).toEqual([200, 400, 800, 1600, 3200, 6000, 6000]);
  });

  it('other failures keep the contract pace (01-general-contract.md "Errors", retry rules: 1, 2, 4 … s, capped at 30)', () => {
    const delays = [0, 1, 2, 3, 4, 5, 6].map((attempt) => {
      const d = decideRetry({ status: undefined, attempt, maxRetries: 7, idempotent: true, random: () => 0.5 });
      return d.retry ? d.delayMs : NaN;
    });
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
});
