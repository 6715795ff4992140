import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/core/wire/webhook-signature.js';
import { until } from '../sandbox/helpers.js';
import { type E2E, setup } from './helpers.js';

// `gsh hooks verify` against a real delivery signed by the sandbox (01-general-contract.md
// "Webhooks (per server)": X-Service-Signature is sha256= and the hex HMAC-SHA256 of the exact raw
// body under the hook's secret, verified over raw bytes in constant time). Exit 0 valid, 1 invalid,
// 2 usage; the secret comes from GSH_WEBHOOK_SECRET or --secret-file, never from argv.

let t: E2E;
let receiver: Server;
let dir: string;
let delivery: { raw: Buffer; headers: IncomingHttpHeaders };
let secret: string;
let signature: string;

beforeAll(async () => {
  t = await setup({ servers: 1 });
  t.sandbox.families.allowLocalWebhooks(true);
  dir = mkdtempSync(join(tmpdir(), 'gsh-hooks-verify-'));
  const received: { raw: Buffer; headers: IncomingHttpHeaders }[] = [];
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const server = [...t.sandbox.state.servers.values()][0]!;
  // `hooks create` refuses http URLs before sending (the contract's rule); `gsh api` sends as given.
  const created = await t.gsh(['api', '-X', 'POST', `/servers/${server.id}/hooks`, '-f', `url=${url}`, '-f', 'events[]=backup.completed']);
  expect(created.exitCode, created.stderr).toBe(0);
  secret = JSON.parse(created.stdout).data.secret;
  const emitted = await fetch(`${t.sandbox.origin}/__sandbox/hooks/emit`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ server_id: server.id, event: 'backup.completed', data: { note: 'ünïcode – bytes' } }),
  });
  expect(emitted.status).toBe(200);
  delivery = await until(() => received[0]);
  signature = String(delivery.headers['x-service-signature']);
  writeFileSync(join(dir, 'body.json'), delivery.raw);
  writeFileSync(join(dir, 'hook.secret'), `${secret}\n`);
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => receiver.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const verify = (args: string[], opts: { input?: string | Buffer; env?: Record<string, string | undefined> } = {}) =>
  t.gsh(['hooks', 'verify', ...args], { input: opts.input ?? delivery.raw, env: { GSH_WEBHOOK_SECRET: secret, ...opts.env } });

describe('gsh hooks verify', () => {
  it('accepts a real signed delivery: body on stdin, --signature, secret from GSH_WEBHOOK_SECRET (exit 0)', async () => {
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    const r = await verify(['--signature', signature]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('valid webhook signature');
    expect(r.stdout).toBe('');
  });

  it('accepts --payload FILE, --header as received and --secret-file (one trailing newline ignored)', async () => {
    const r = await verify(['--payload', join(dir, 'body.json'), '--header', `x-service-signature: ${signature}`, '--secret-file', join(dir, 'hook.secret')], { env: { GSH_WEBHOOK_SECRET: undefined } });
    expect(r.exitCode, r.stderr).toBe(0);
    // --secret-file beats the environment (a flag typed on the command line wins).
    expect((await verify(['--signature', signature, '--secret-file', join(dir, 'hook.secret')], { env: { GSH_WEBHOOK_SECRET: 'whsec_wrong_but_ignored' } })).exitCode).toBe(0);
    expect((await verify(['--signature', signature.toUpperCase().replace('SHA256=', 'sha256=')])).exitCode).toBe(0);
  });

  it('rejects a tampered body, another secret and a malformed or empty signature (exit 1)', async () => {
    const tampered = Buffer.from(delivery.raw);
    tampered[tampered.length - 3]! ^= 0x01;
    const changed = await verify(['--signature', signature], { input: tampered });
    expect(changed.exitCode).toBe(1);
    expect(changed.stderr).toMatch(/invalid webhook signature: .*does not match/);
    expect((await verify(['--signature', signature], { input: Buffer.concat([delivery.raw, Buffer.from('\n')]) })).exitCode).toBe(1);
    expect((await verify(['--signature', signature], { env: { GSH_WEBHOOK_SECRET: `${secret}x` } })).exitCode).toBe(1);
    for (const bad of ['sha256=abc', `sha1=${signature.slice(7)}`, signature.slice(7), `${signature}00`, 'sha256=' + 'g'.repeat(64)]) {
      const r = await verify(['--signature', bad]);
      expect(r.exitCode, bad).toBe(1);
      expect(r.stderr).toMatch(/malformed/);
    }
    const unsigned = await verify(['--signature', '']);
    expect(unsigned.exitCode).toBe(1);
    expect(unsigned.stderr).toMatch(/empty/);
  });

  it('usage errors (exit 2): no secret, an empty secret, no signature flag, both flags, another header, a missing file, a terminal', async () => {
    const cases: [string[], Record<string, string | undefined>, RegExp][] = [
      [['--signature', signature], { GSH_WEBHOOK_SECRET: undefined }, /no webhook secret/],
      [['--signature', signature], { GSH_WEBHOOK_SECRET: '' }, /empty/],
      [[], {}, /no signature to check/],
      [['--signature', signature, '--header', `X-Service-Signature: ${signature}`], {}, /not both/],
      [['--header', `X-Service-Event: ${signature}`], {}, /--header takes the X-Service-Signature header/],
      [['--signature', signature, '--payload', join(dir, 'missing.json')], {}, /cannot read it \(ENOENT\)/],
      [['--signature', signature, '--secret-file', dir], {}, /not a regular file/],
    ];
    for (const [args, env, message] of cases) {
      const r = await verify(args, { env });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    const tty = await t.gsh(['hooks', 'verify', '--signature', signature], { env: { GSH_WEBHOOK_SECRET: secret }, tty: { stdin: true } });
    expect(tty.exitCode).toBe(2);
    expect(tty.stderr).toMatch(/standard input, which is a terminal/);
  });

  it('never takes the secret from argv, and never prints it back', async () => {
    for (const args of [['--secret', secret], [`--secret=${secret}`]]) {
      const r = await verify(['--signature', signature, ...args], { env: { GSH_WEBHOOK_SECRET: undefined } });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/never taken from the command line/);
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    const help = await t.gsh(['hooks', 'verify', '--help']);
    expect(help.stdout).toContain('--secret-file');
    expect(help.stdout).not.toMatch(/--secret </);
  });

  it('--dry-run says what it would check, without reading the body or naming the secret', async () => {
    const r = await verify(['--signature', signature, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/X-Service-Signature of the body on standard input with the secret from GSH_WEBHOOK_SECRET/);
    expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('the check itself: only a 64-digit sha256 HMAC of the exact bytes under the exact secret passes', () => {
    expect(verifySignature(secret, delivery.raw, signature)).toEqual({ valid: true });
    expect(verifySignature(Buffer.from(secret), delivery.raw, ` ${signature}\r\n`)).toEqual({ valid: true });
    expect(verifySignature(secret.slice(0, -1), delivery.raw, signature).valid).toBe(false);
    expect(verifySignature(secret, delivery.raw.subarray(1), signature).valid).toBe(false);
  });
});
