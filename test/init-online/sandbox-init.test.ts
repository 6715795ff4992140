import { describe, expect, it } from 'vitest';
import { call, until, withSandbox } from '../sandbox/helpers.js';
import type { Sandbox } from '../../src/sandbox/index.js';

// The sandbox's init endpoints against 02-endpoints-part-a.md "Init templates and manifest
// validation" and 01-general-contract.md "Init manifest" / "Caps by plan", through real HTTP.

const HEADER = '#service-init';
const minimal = `${HEADER}\nversion: 1\n`;
const twoHooks = `${HEADER}\nversion: 1\nhooks:\n  - url: https://example.com/a\n    events: [server.started]\n  - url: https://example.com/b\n    events: [server.started]\n`;

async function template(sb: Sandbox, name: string, manifest: unknown): Promise<string> {
  const r = await call(sb, 'POST', '/init/templates', { body: { name, manifest } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.id as string;
}

async function createServer(sb: Sandbox, body: Record<string, unknown>): Promise<string> {
  const r = await call(sb, 'POST', '/servers', { body: { name: 'init-test', ...body } });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const jobId = r.body.data.job_id as string;
  return until(async () => (await call(sb, 'GET', `/account/servers/create-jobs/${jobId}`)).body.data.server_id as string | undefined);
}

async function finishedInit(sb: Sandbox, serverId: string): Promise<any> {
  return until(async () => {
    const job = (await call(sb, 'GET', `/servers/${serverId}/init`)).body?.data;
    return ['completed', 'partial', 'failed', 'timed_out'].includes(job?.state) ? job : undefined;
  });
}

describe('POST /init/validate', () => {
  it('200 for a valid manifest as text or as an object; default tier paid', () => withSandbox({}, async (sb) => {
    const text = await call(sb, 'POST', '/init/validate', { body: { init: twoHooks } });
    expect([text.status, text.body.data.valid, text.body.data.tier]).toEqual([200, true, 'paid']);
    const object = await call(sb, 'POST', '/init/validate', { body: { init: { version: 1, env: { A: 'b' } } } });
    expect(object.status).toBe(200);
  }));

  it('checks the caps of the asked tier: two hooks pass paid and fail free (free allows 1)', () => withSandbox({}, async (sb) => {
    const free = await call(sb, 'POST', '/init/validate', { body: { init: twoHooks, tier: 'free' } });
    expect(free.status).toBe(422);
    expect(free.body.error.code).toBe('validation_failed');
    expect(free.body.error.errors).toEqual([{ field: 'init.hooks', message: expect.stringContaining('the free plan allows 1') }]);
  }));

  it('422 field errors are prefixed init. (document-level problems name init itself)', () => withSandbox({}, async (sb) => {
    const r = await call(sb, 'POST', '/init/validate', { body: { init: '# service-init\nversion: 2\nfiles:\n  - path: a\n' } });
    expect(r.status).toBe(422);
    const fields = r.body.error.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['init', 'init.version', 'init.files[0]']));
    expect(fields.every((f: string) => f === 'init' || f.startsWith('init.'))).toBe(true);
  }));

  it('400 without init or template_id, and for an unknown tier', () => withSandbox({}, async (sb) => {
    expect((await call(sb, 'POST', '/init/validate', { body: { tier: 'paid' } })).status).toBe(400);
    expect((await call(sb, 'POST', '/init/validate', { body: { init: minimal, tier: 'gold' } })).status).toBe(400);
  }));

  it('an overlay replaces the template\'s top-level keys; template errors stay on template_id', () => withSandbox({}, async (sb) => {
    const id = await template(sb, 'hooks', twoHooks);
    // The template alone has two hooks: too many for free. An overlay with one hook replaces them.
    expect((await call(sb, 'POST', '/init/validate', { body: { template_id: id, tier: 'free' } })).status).toBe(422);
    const overlay = `${HEADER}\nhooks:\n  - url: https://example.com/only\n    events: [server.stopped]\n`;
    expect((await call(sb, 'POST', '/init/validate', { body: { template_id: id, init: overlay, tier: 'free' } })).status).toBe(200);
    const missing = await call(sb, 'POST', '/init/validate', { body: { template_id: 'tpl_nope', init: minimal } });
    expect([missing.status, missing.body.error.errors[0].field]).toEqual([422, 'template_id']);
    const badHeader = await call(sb, 'POST', '/init/validate', { body: { template_id: id, init: 'hooks: []\n' } });
    expect(badHeader.body.error.errors).toEqual([{ field: 'init', message: expect.stringContaining('#service-init') }]);
  }));
});

describe('init templates', () => {
  it('validates at paid caps on save, keeps names unique, lists newest first, patches and deletes', () => withSandbox({}, async (sb) => {
    const first = await template(sb, 'lobby', twoHooks);
    const second = await template(sb, 'arena', minimal);
    const dup = await call(sb, 'POST', '/init/templates', { body: { name: 'LOBBY', manifest: minimal } });
    expect([dup.status, dup.body.error.code]).toEqual([409, 'conflict']);
    const invalid = await call(sb, 'POST', '/init/templates', { body: { name: 'x', manifest: `${HEADER}\nversion: 1\nbogus: 1\n` } });
    expect([invalid.status, invalid.body.error.errors[0].field]).toEqual([422, 'manifest.bogus']);
    expect((await call(sb, 'POST', '/init/templates', { body: { manifest: minimal } })).status).toBe(400);

    const list = await call(sb, 'GET', '/init/templates');
    expect(list.body.data.map((t: { id: string }) => t.id)).toEqual([second, first]);
    expect(list.body.pagination.total).toBe(2);

    expect((await call(sb, 'PATCH', `/init/templates/${second}`, { body: { name: 'lobby' } })).status).toBe(409);
    const patched = await call(sb, 'PATCH', `/init/templates/${second}`, { body: { description: 'Arena', manifest: twoHooks } });
    expect([patched.status, patched.body.data.description, patched.body.data.manifest]).toEqual([200, 'Arena', twoHooks]);
    expect((await call(sb, 'PATCH', `/init/templates/${second}`, { body: { manifest: 'version: 1\n' } })).status).toBe(422);

    expect((await call(sb, 'DELETE', `/init/templates/${first}`)).status).toBe(200);
    expect((await call(sb, 'GET', `/init/templates/${first}`)).status).toBe(404);
  }));
});

describe('POST /servers with init, and GET /servers/{server_id}/init', () => {
  it('re-validates at the server\'s real tier: two hooks are refused on a free server', () => withSandbox({}, async (sb) => {
    const r = await call(sb, 'POST', '/servers', { body: { name: 'free-one', plan: 'free', init: twoHooks } });
    expect([r.status, r.body.error.errors[0].field]).toEqual([422, 'init.hooks']);
    expect((await call(sb, 'POST', '/servers', { body: { name: 'paid-one', plan: 'paid', init: twoHooks } })).status).toBe(202);
  }));

  it('runs the phases in order and ends completed; files land on the server; a run starts it', () => withSandbox({}, async (sb) => {
    const manifest = `${HEADER}\nversion: 1\nfiles:\n  - path: config/motd.txt\n    content: hello\n    mode: "0600"\nrun: [say ready]\n`;
    const id = await createServer(sb, { init: manifest });
    const job = await finishedInit(sb, id);
    expect(job.state).toBe('completed');
    expect(job.phases.map((p: { name: string; state: string }) => `${p.name}:${p.state}`)).toEqual([
      'content:completed', 'files:completed', 'env:completed', 'registrations:completed', 'run:completed', 'finalize:completed',
    ]);
    const file = await call(sb, 'GET', `/servers/${id}/files/content?path=/config/motd.txt`);
    expect([file.status, file.text]).toEqual([200, 'hello']);
    expect(sb.state.servers.get(id)?.state).toBe('running');
  }));

  it('soft phases record warnings and the job ends partial; the overlay merges onto the template', () => withSandbox({}, async (sb) => {
    const tpl = await template(sb, 'base', `${HEADER}\nversion: 1\nenv:\n  MODE: lobby\n`);
    const overlay = `${HEADER}\naccess:\n  - email: nobody@example.com\n    permissions: [file.read]\n  - email: alex@example.com\n    permissions: [file.read]\n`;
    const id = await createServer(sb, { plan: 'paid', template_id: tpl, init: overlay });
    const job = await finishedInit(sb, id);
    expect(job.state).toBe('partial');
    expect(job.warnings).toEqual([{ phase: 'registrations', field: 'access[0]', message: 'no panel user matches nobody@example.com; grant skipped' }]);
    expect(job.phases.find((p: { name: string }) => p.name === 'env').detail).toBe('1 variable set');
    expect(job.phases.find((p: { name: string }) => p.name === 'registrations').state).toBe('completed');
  }));

  it('a hard phase fails the job with a precise error and skips the rest', () => withSandbox({}, async (sb) => {
    const manifest = `${HEADER}\nversion: 1\nassets:\n  - url: https://cdn.example.invalid/pack.zip\n    size: 1024\n    sha256: ${'a'.repeat(64)}\n`;
    const id = await createServer(sb, { init: manifest });
    const job = await finishedInit(sb, id);
    expect(job.state).toBe('failed');
    expect(job.errors).toEqual([{ phase: 'content', field: 'assets[0].url', message: 'download failed: cdn.example.invalid does not resolve' }]);
    expect(job.phases.map((p: { state: string }) => p.state)).toEqual(['failed', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
  }));

  it('a file written over a directory of the server fails the files phase', () => withSandbox({}, async (sb) => {
    const id = await createServer(sb, { init: `${HEADER}\nversion: 1\nfiles:\n  - path: world\n    content: x\n` });
    const job = await finishedInit(sb, id);
    expect([job.state, job.errors[0].phase, job.errors[0].field]).toEqual(['failed', 'files', 'files[0].path']);
  }));

  it('404 for a server that never ran init', () => withSandbox({}, async (sb) => {
    const [first] = sb.state.servers.keys();
    const r = await call(sb, 'GET', `/servers/${first}/init`);
    expect([r.status, r.body.error.code]).toEqual([404, 'not_found']);
  }));
});
