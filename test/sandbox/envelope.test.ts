import { describe, expect, it } from 'vitest';
import { TIMESTAMP, call, withSandbox } from './helpers.js';

// 01-general-contract.md "Envelope rules" and "Errors"; 02-endpoints-part-a.md "System".

describe('envelope and errors', () => {
  it('GET /health needs no credential and answers {data}', () =>
    withSandbox({}, async (sb) => {
      const r = await call(sb, 'GET', '/health', { key: null });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ status: 'ok' });
      expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    }));

  it('GET /me returns the account and non-secret key metadata with second-precision timestamps', () =>
    withSandbox({}, async (sb) => {
      const r = await call(sb, 'GET', '/me', { key: sb.keys.readOnly });
      expect(r.status).toBe(200);
      expect(r.body.data.account).toMatchObject({ object: 'account', username: 'demo' });
      expect(typeof r.body.data.account.id).toBe('number');
      const key = r.body.data.key;
      expect(key).toMatchObject({ object: 'api_key', name: 'sandbox read-only', rate_limit: 1000 });
      expect(key.scopes).toContain('servers:read');
      expect(key.scopes).not.toContain('servers:power');
      expect(sb.keys.readOnly.startsWith(key.prefix)).toBe(true);
      expect(key.prefix.length).toBeLessThan(sb.keys.readOnly.length);
      expect(JSON.stringify(r.body)).not.toContain(sb.keys.readOnly);
      for (const f of ['created_at', 'expires_at', 'last_used_at']) expect(key[f]).toMatch(TIMESTAMP);
    }));

  it('unknown routes give the JSON 404 envelope with request_id equal to x-request-id', () =>
    withSandbox({}, async (sb) => {
      const r = await call(sb, 'GET', '/no/such/route');
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'not_found' });
      expect(typeof r.body.error.message).toBe('string');
      expect(r.body.error.doc_url).toContain('not_found');
      expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    }));

  it('a known path with the wrong method is 405 method_not_allowed with Allow', () =>
    withSandbox({}, async (sb) => {
      const r = await call(sb, 'PATCH', '/servers');
      expect(r.status).toBe(405);
      expect(r.body.error.code).toBe('method_not_allowed');
      expect(r.headers.get('allow')).toBe('GET, POST');
      expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
    }));

  it('invalid JSON and unsupported content types are 400 bad_request', () =>
    withSandbox({}, async (sb) => {
      const id = [...sb.state.servers.keys()][0]!;
      const bad = await call(sb, 'POST', `/servers/${id}/power`, { rawBody: '{"signal":', headers: { 'content-type': 'application/json' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('bad_request');
      const text = await call(sb, 'POST', `/servers/${id}/power`, { rawBody: 'signal=start', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(text.status).toBe(400);
      const notObject = await call(sb, 'POST', `/servers/${id}/power`, { body: ['start'] });
      expect(notObject.status).toBe(400);
    }));

  it('never crashes on hostile input', () =>
    withSandbox({}, async (sb) => {
      const weird = ['/servers/%E0%A4%A', '/servers/%00', `/servers/${'x'.repeat(5000)}`, '/servers?limit=%zz'];
      for (const p of weird) {
        const r = await call(sb, 'GET', p);
        expect([400, 404]).toContain(r.status);
        expect(r.body.error.code).toMatch(/bad_request|not_found/);
      }
      expect((await call(sb, 'GET', '/health')).status).toBe(200);
    }));

  it('helpers: /docs redirects 308, llms.txt and openapi.json are served without a credential', () =>
    withSandbox({}, async (sb) => {
      const docs = await call(sb, 'GET', '/docs', { key: null });
      expect(docs.status).toBe(308);
      expect(docs.headers.get('location')).toBeTruthy();
      const llms = await call(sb, 'GET', '/llms.txt', { key: null });
      expect(llms.status).toBe(200);
      expect(llms.text).toContain('# ');
      const spec = await call(sb, 'GET', '/openapi.json', { key: null });
      expect(spec.body.openapi).toMatch(/^3\./);
      expect(spec.body.paths['/servers/{server_id}/power'].post).toBeTruthy();
    }));
});
