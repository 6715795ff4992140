import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// Issue 51 item 9: a base URL holding `user:password@` is refused (exit 2) before anything is
// sent, wherever it comes from (--base-url, GSH_BASE_URL, a profile in config.json, auth login),
// and the user and password are never printed (errors, --dry-run, --debug) or saved.
// 01-general-contract.md "Authentication": the credential is the API key (a bearer), not a password.

let t: E2E;
let dir: string;
beforeAll(async () => {
  t = await setup({ servers: 1 });
  dir = mkdtempSync(join(tmpdir(), 'gsh-userinfo-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const SECRET = 'pa55w0rd-s3cret';
const withUser = () => t.sandbox.baseUrl.replace('://', `://admin:${SECRET}@`);

function expectRefused(r: { exitCode: number; stdout: string; stderr: string }, from: string) {
  expect(r.exitCode, r.stderr).toBe(2);
  expect(r.stderr).toContain(`${from} holds a user name or password`);
  expect(r.stdout + r.stderr).not.toContain(SECRET);
  expect(r.stdout + r.stderr).not.toContain('admin');
}

describe('a base URL with user:password@', () => {
  it('--base-url: exit 2, nothing sent, also with --dry-run and --debug', async () => {
    for (const extra of [[], ['--dry-run'], ['--debug']]) {
      const before = t.sandbox.log.length;
      const r = await t.gsh(['servers', 'list', '--base-url', withUser(), ...extra], { env: { GSH_BASE_URL: undefined } });
      expectRefused(r, '--base-url');
      expect(t.sandbox.log.length - before).toBe(0);
    }
  });

  it('GSH_BASE_URL: exit 2, nothing sent', async () => {
    const before = t.sandbox.log.length;
    expectRefused(await t.gsh(['servers', 'list'], { env: { GSH_BASE_URL: withUser() } }), 'GSH_BASE_URL');
    expect(t.sandbox.log.length - before).toBe(0);
  });

  it('a profile in config.json that holds one: exit 2, the profile named, nothing sent', async () => {
    const config = join(dir, 'profile');
    mkdirSync(config, { recursive: true, mode: 0o700 });
    writeFileSync(join(config, 'config.json'), JSON.stringify({ current: 'ci', profiles: { ci: { base_url: withUser(), api_key: t.sandbox.keys.all } } }), { mode: 0o600 });
    const before = t.sandbox.log.length;
    const r = await t.gsh(['servers', 'list'], { env: { GSH_BASE_URL: undefined, GSH_API_KEY: undefined, GSH_CONFIG_DIR: config } });
    expectRefused(r, 'the base URL of profile "ci" (config.json)');
    expect(t.sandbox.log.length - before).toBe(0);
  });

  it('auth login: exit 2, no profile saved', async () => {
    const config = join(dir, 'login');
    const before = t.sandbox.log.length;
    const r = await t.gsh(['auth', 'login', '--base-url', withUser()], { env: { GSH_BASE_URL: undefined, GSH_API_KEY: undefined, GSH_CONFIG_DIR: config }, input: `${t.sandbox.keys.all}\n` });
    expectRefused(r, 'the base URL');
    expect(t.sandbox.log.length - before).toBe(0);
    const file = join(config, 'config.json');
    if (existsSync(file)) expect(readFileSync(file, 'utf8')).not.toContain(SECRET);
  });
});
