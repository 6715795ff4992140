import { describe, expect, it } from 'vitest';
import { call, withSandbox } from '../helpers.js';
import type { Sandbox } from '../../../src/sandbox/index.js';

// The node side of signed URLs and the file tree under bad input (03-endpoints-part-b.md "File
// transfers", "Files"): every request gets an answer, the tree never escapes `/`.

const minecraft = (sb: Sandbox) => [...sb.state.servers.values()].find((s) => s.application === 'minecraft')!.id;

async function uploadUrl(sb: Sandbox, id: string): Promise<string> {
  return (await call(sb, 'POST', `/servers/${id}/files/upload`)).body.data.url;
}

describe('node upload URL', () => {
  it('answers malformed forms with 400 and keeps running', () =>
    withSandbox({}, async (sb) => {
      const url = await uploadUrl(sb, minecraft(sb));
      const post = (body: string, type = 'multipart/form-data; boundary=XyZ') => fetch(url, { method: 'POST', headers: { 'content-type': type }, body });
      expect((await post('hello', 'text/plain')).status).toBe(400);
      expect((await post('no boundary here')).status).toBe(400);
      expect((await post('--XyZ\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nunterminated')).status).toBe(400);
      expect((await post('--XyZ\r\nContent-Disposition: form-data; name="note"\r\n\r\ntext\r\n--XyZ--\r\n')).status).toBe(400);
      expect((await fetch(url)).status).toBe(405);
      expect((await fetch(`${sb.origin}/__node/elsewhere`)).status).toBe(404);
      expect((await call(sb, 'GET', '/health')).status).toBe(200);
    }));

  it('keeps uploads inside the tree: ../ in the file name or directory stays under /', () =>
    withSandbox({}, async (sb) => {
      const id = minecraft(sb);
      const url = await uploadUrl(sb, id);
      const form = new FormData();
      form.append('files', new Blob(['x']), '../../etc/passwd');
      const r = await fetch(`${url}&directory=/../../up`, { method: 'POST', body: form });
      expect(((await r.json()) as { data: { files: unknown } }).data.files).toEqual([{ path: '/up/passwd', size: 1 }]);
    }));

  it('an upload URL for one server cannot write to another', () =>
    withSandbox({}, async (sb) => {
      const [a, b] = [...sb.state.servers.keys()];
      const url = (await uploadUrl(sb, a!)).replace(`server=${a}`, `server=${b}`);
      const form = new FormData();
      form.append('files', new Blob(['x']), 'x.txt');
      expect((await fetch(url, { method: 'POST', body: form })).status).toBe(403);
    }));
});

describe('file operations under bad input', () => {
  it('answers 400/404/409, never 500', () =>
    withSandbox({}, async (sb) => {
      const f = `/servers/${minecraft(sb)}/files`;
      const cases: Array<[string, string, unknown]> = [
        ['GET', `${f}/content?path=relative.txt`, undefined],
        ['GET', `${f}/content?path=/missing`, undefined],
        ['GET', `${f}?directory=/server.properties`, undefined],
        ['PUT', `${f}/content`, { path: '/a', content: 5 }],
        ['POST', `${f}/delete`, { files: [] }],
        ['POST', `${f}/delete`, { files: '/' }],
        ['POST', `${f}/move`, { from: '/plugins', to: '/plugins/inner' }],
        ['POST', `${f}/move`, { from: '/eula.txt', to: '/bukkit.yml' }],
        ['POST', `${f}/chmod`, { mode: '999', files: ['/eula.txt'] }],
        ['POST', `${f}/folder`, { name: 'a/b' }],
        ['POST', `${f}/decompress`, { file: 'eula.txt' }],
        ['GET', `${f}/nbt?path=/eula.txt`, undefined],
        ['GET', `${f}/search/content?query=a`, undefined],
        ['POST', `${f}/copy-to`, { mode: 'copy', files: Array.from({ length: 101 }, (_, i) => `/f${i}`), destination: '/d' }],
        ['POST', `${f}/trash/restore`, {}],
        ['POST', `${f}/pull`, { url: 'http://169.254.169.254/latest/meta-data' }],
        ['POST', `${f}/transfer`, { files: ['/eula.txt'], target_server_id: 'nope' }],
      ];
      for (const [method, path, body] of cases) {
        const r = await call(sb, method, path, body === undefined ? {} : { body });
        expect([400, 404, 409], `${method} ${path} ${JSON.stringify(body)}`).toContain(r.status);
      }
    }));

  it('trash restores to the original path, suffixed on collision', () =>
    withSandbox({}, async (sb) => {
      const f = `/servers/${minecraft(sb)}/files`;
      const [entry] = (await call(sb, 'GET', `${f}/trash`)).body.data;
      await call(sb, 'PUT', `${f}/content`, { body: { path: entry.path, content: 'new' } });
      const r = await call(sb, 'POST', `${f}/trash/restore`, { body: { entries: [entry.id] } });
      expect(r.body.data.restored).toEqual([{ id: entry.id, path: '/old-motd (1).txt' }]);
      expect((await call(sb, 'GET', `${f}/trash`)).body.pagination.total).toBe(0);
    }));
});
