import { request } from 'node:http';

// The tools the sandbox's MCP server offers (01-general-contract.md "What the service does", item
// 6: tools for servers, files, console, backups, billing). The contract names no tool, so these
// are the sandbox's own. Each tool is one REST request sent back into the sandbox's own API on
// loopback with the caller's bearer, so scopes, permissions, agent approvals, faults, the request
// log and the effects list apply to a tool exactly as to the REST request it stands for.

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  /** Absent on purpose for one tool (`rename_server`): a client must treat it as a write. */
  annotations?: ToolAnnotations;
  inputSchema: { type: 'object'; properties: Record<string, { type: string; description?: string; enum?: string[] }>; required?: string[] };
  /** The REST request the tool stands for; `long`: the health check that reports progress. */
  rest?: (args: Record<string, unknown>) => { method: string; path: string; query?: Record<string, string>; body?: unknown };
  long?: true;
}

const serverArg = { server_id: { type: 'string', description: 'The server id' } };
const seg = (v: unknown) => encodeURIComponent(String(v ?? ''));
const read: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const write: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };

export const TOOLS: readonly ToolDef[] = [
  {
    name: 'list_servers', title: 'List servers', description: 'Every server of the account, with its state.', annotations: read,
    inputSchema: { type: 'object', properties: { limit: { type: 'number' }, offset: { type: 'number' } } },
    rest: (a) => ({ method: 'GET', path: '/servers', query: { limit: String(a.limit ?? 50), offset: String(a.offset ?? 0) } }),
  },
  {
    name: 'get_server', title: 'Get a server', description: 'One server by id.', annotations: read,
    inputSchema: { type: 'object', properties: serverArg, required: ['server_id'] },
    rest: (a) => ({ method: 'GET', path: `/servers/${seg(a.server_id)}` }),
  },
  {
    name: 'power_server', title: 'Start, stop or restart a server', description: 'Sends a power signal: start, stop, restart or kill.',
    annotations: { ...write, idempotentHint: false },
    inputSchema: { type: 'object', properties: { ...serverArg, signal: { type: 'string', enum: ['start', 'stop', 'restart', 'kill'] } }, required: ['server_id', 'signal'] },
    rest: (a) => ({ method: 'POST', path: `/servers/${seg(a.server_id)}/power`, body: { signal: a.signal } }),
  },
  {
    name: 'delete_server', title: 'Delete a server', description: 'Deletes the server and its files. Cannot be undone.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    inputSchema: { type: 'object', properties: serverArg, required: ['server_id'] },
    rest: (a) => ({ method: 'DELETE', path: `/servers/${seg(a.server_id)}` }),
  },
  {
    name: 'rename_server', title: 'Rename a server', description: 'Changes the display name of a server.',
    inputSchema: { type: 'object', properties: { ...serverArg, name: { type: 'string' } }, required: ['server_id', 'name'] },
    rest: (a) => ({ method: 'PATCH', path: `/servers/${seg(a.server_id)}/settings`, body: { name: a.name } }),
  },
  {
    name: 'list_files', title: 'List files', description: 'The entries of one directory of a server.', annotations: read,
    inputSchema: { type: 'object', properties: { ...serverArg, directory: { type: 'string' } }, required: ['server_id'] },
    rest: (a) => ({ method: 'GET', path: `/servers/${seg(a.server_id)}/files`, query: { directory: String(a.directory ?? '/') } }),
  },
  {
    name: 'read_file', title: 'Read a file', description: 'The text of one file of a server.', annotations: read,
    inputSchema: { type: 'object', properties: { ...serverArg, path: { type: 'string' } }, required: ['server_id', 'path'] },
    rest: (a) => ({ method: 'GET', path: `/servers/${seg(a.server_id)}/files/content`, query: { path: String(a.path ?? '') } }),
  },
  {
    name: 'write_file', title: 'Write a file', description: 'Writes UTF-8 text to a file of a server, creating it.',
    annotations: { ...write, destructiveHint: true, idempotentHint: true },
    inputSchema: { type: 'object', properties: { ...serverArg, path: { type: 'string' }, content: { type: 'string' } }, required: ['server_id', 'path', 'content'] },
    rest: (a) => ({ method: 'PUT', path: `/servers/${seg(a.server_id)}/files/content`, body: { path: a.path, content: a.content } }),
  },
  {
    name: 'send_command', title: 'Send a console command', description: 'Runs one command in the server console.', annotations: write,
    inputSchema: { type: 'object', properties: { ...serverArg, command: { type: 'string' } }, required: ['server_id', 'command'] },
    rest: (a) => ({ method: 'POST', path: `/servers/${seg(a.server_id)}/commands`, body: { command: a.command } }),
  },
  {
    name: 'list_backups', title: 'List backups', description: 'The backups of a server.', annotations: read,
    inputSchema: { type: 'object', properties: serverArg, required: ['server_id'] },
    rest: (a) => ({ method: 'GET', path: `/servers/${seg(a.server_id)}/backups` }),
  },
  {
    name: 'create_backup', title: 'Create a backup', description: 'Starts a backup of a server.', annotations: write,
    inputSchema: { type: 'object', properties: { ...serverArg, name: { type: 'string' } }, required: ['server_id'] },
    rest: (a) => ({ method: 'POST', path: `/servers/${seg(a.server_id)}/backups`, body: a.name === undefined ? {} : { name: a.name } }),
  },
  {
    name: 'get_balance', title: 'Account balance', description: 'The billing balance of the account.', annotations: read,
    inputSchema: { type: 'object', properties: {} },
    rest: () => ({ method: 'GET', path: '/account/billing/balance' }),
  },
  {
    name: 'check_server_health', title: 'Check a server\'s health', description: 'A slow check of a server that reports its progress.',
    annotations: read, long: true,
    inputSchema: { type: 'object', properties: { ...serverArg, seconds: { type: 'number', description: 'How long the check takes (default 2)' } }, required: ['server_id'] },
    rest: (a) => ({ method: 'GET', path: `/servers/${seg(a.server_id)}` }),
  },
];

export interface RestAnswer {
  status: number;
  body: unknown;
}

/** One request into the sandbox's own API, as the caller (its Authorization header). */
export function callRest(apiBase: string, authorization: string | undefined, r: ReturnType<NonNullable<ToolDef['rest']>>): Promise<RestAnswer> {
  const url = new URL(apiBase + r.path);
  for (const [k, v] of Object.entries(r.query ?? {})) url.searchParams.set(k, v);
  const payload = r.body === undefined ? undefined : JSON.stringify(r.body);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: r.method,
      agent: false,
      headers: { accept: 'application/json', ...(authorization ? { authorization } : {}), ...(payload ? { 'content-type': 'application/json' } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // A raw answer (a file's content) stays text.
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
