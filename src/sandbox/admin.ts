import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from './context.js';
import { readJsonObject } from './request.js';
import { serverObject, sortedServers } from './state.js';
import type { Faults, Injection } from './types.js';
import { createSubuserKey } from './permissions.js';
import { familyState } from './node/slots.js';
import { emitEvent } from './node/webhooks.js';

// Out-of-process control of a running sandbox for scripts, e2e tests and the README. It lives
// outside /api/v2, needs no credential (the sandbox binds 127.0.0.1 only) and is never faulted
// or logged.
//
//   GET    /__sandbox                 base_url, demo keys, this list
//   GET    /__sandbox/log?since=N     request log entries with seq > N ({data:[...]})
//   DELETE /__sandbox/log             clear the log
//   GET    /__sandbox/effects?since=N changes made (mutations executed, replays not counted)
//                                      whose request seq > N ({data:[...]})
//   GET    /__sandbox/faults          current probabilities/latency and pending injections
//   POST   /__sandbox/faults          {gateway5xx?, lostResponse?, rateLimit429?, latencyMs?}
//   POST   /__sandbox/inject          {kind: 500|502|503|504|429|"lost"|"drop", method?, path?,
//                                      path_regex?, count?, retry_after?}
//                                      ("cut": a signed download, path /__node/archive or
//                                      /__node/download, sends half its bytes and is cut)
//   DELETE /__sandbox/inject          forget pending injections
//   POST   /__sandbox/archives        {filler_bytes} archives made from now on (worlds, backups,
//                                      database backups) carry this many extra bytes
//   POST   /__sandbox/keys            {scopes: [...], rate_limit?, name?, subuser?: {server_id,
//                                      permissions: [...]}} → {data:{key, id}}; with subuser the
//                                      key acts as a new panel user, subuser of that server
//   POST   /__sandbox/webhooks        {allow_local: bool} sandbox-only: let hooks target
//                                      http(s)://127.0.0.1|localhost (the contract forbids it)
//   POST   /__sandbox/hooks/emit      {server_id, event, data?} deliver an event to the hooks
//   GET    /__sandbox/state           servers with live status, creation jobs, effect counters
//   GET    /__sandbox/ad?server_id=X  records an ad view (the ad_required action_url)

export const ADMIN_PREFIX = '/__sandbox';

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

const bad = (res: ServerResponse, message: string) => json(res, 400, { error: { code: 'bad_request', message } });

const INJECTABLE = new Set<unknown>([500, 502, 503, 504, 429, 'lost', 'drop', 'cut']);

export async function handleAdmin(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const route = `${method} ${url.pathname.replace(/\/$/, '')}`;
  switch (route) {
    case `GET ${ADMIN_PREFIX}`:
      return json(res, 200, {
        data: {
          base_url: ctx.baseUrl,
          keys: { all: ctx.demoKeys.all.secret, read_only: ctx.demoKeys.readOnly.secret },
          endpoints: ['log', 'effects', 'faults', 'inject', 'archives', 'keys', 'webhooks', 'hooks/emit', 'state', 'ad'].map((p) => `${ctx.origin}${ADMIN_PREFIX}/${p}`),
        },
      });
    case `GET ${ADMIN_PREFIX}/log`: {
      const since = Number(url.searchParams.get('since') ?? '0');
      return json(res, 200, { data: ctx.log.entries.filter((e) => e.seq > (Number.isFinite(since) ? since : 0)) });
    }
    case `GET ${ADMIN_PREFIX}/effects`: {
      const since = Number(url.searchParams.get('since') ?? '0');
      return json(res, 200, { data: ctx.effects.filter((e) => e.seq > (Number.isFinite(since) ? since : 0)) });
    }
    case `DELETE ${ADMIN_PREFIX}/log`:
      ctx.log.clear();
      return json(res, 200, { data: { cleared: true } });
    case `GET ${ADMIN_PREFIX}/faults`:
      return json(res, 200, { data: { ...ctx.faults.faults, pending_injections: ctx.faults.pendingInjections } });
    case `POST ${ADMIN_PREFIX}/faults`: {
      const body = await readJsonObject(req);
      if (!body) return bad(res, 'body must be a JSON object');
      ctx.faults.set(body as Partial<Faults>);
      return json(res, 200, { data: { ...ctx.faults.faults } });
    }
    case `POST ${ADMIN_PREFIX}/inject`: {
      const body = await readJsonObject(req);
      if (!body || !INJECTABLE.has(body.kind)) return bad(res, 'kind must be one of 500, 502, 503, 504, 429, "lost", "drop", "cut"');
      let path: string | RegExp | undefined = typeof body.path === 'string' ? body.path : undefined;
      if (typeof body.path_regex === 'string') {
        try {
          path = new RegExp(body.path_regex);
        } catch {
          return bad(res, 'path_regex is not a valid regular expression');
        }
      }
      const injection: Injection = {
        kind: body.kind as Injection['kind'],
        ...(typeof body.method === 'string' ? { method: body.method } : {}),
        ...(path !== undefined ? { path } : {}),
        ...(typeof body.count === 'number' ? { count: body.count } : {}),
        ...(typeof body.retry_after === 'number' ? { retryAfter: body.retry_after } : {}),
      };
      ctx.faults.inject(injection);
      return json(res, 200, { data: { pending_injections: ctx.faults.pendingInjections } });
    }
    case `DELETE ${ADMIN_PREFIX}/inject`:
      ctx.faults.clearInjections();
      return json(res, 200, { data: { pending_injections: 0 } });
    case `POST ${ADMIN_PREFIX}/keys`: {
      const body = await readJsonObject(req);
      if (!body || !Array.isArray(body.scopes) || !body.scopes.every((s) => typeof s === 'string')) {
        return bad(res, 'scopes must be an array of strings');
      }
      const opts = {
        rateLimit: typeof body.rate_limit === 'number' && body.rate_limit > 0 ? body.rate_limit : ctx.defaultRateLimit,
        ...(typeof body.name === 'string' ? { name: body.name } : {}),
      };
      const sub = body.subuser as { server_id?: unknown; permissions?: unknown } | undefined;
      if (sub !== undefined) {
        if (typeof sub?.server_id !== 'string' || !Array.isArray(sub.permissions) || !sub.permissions.every((x) => typeof x === 'string')) {
          return bad(res, 'subuser needs server_id and permissions (array of strings)');
        }
        const made = createSubuserKey(ctx, body.scopes as string[], { serverId: sub.server_id, permissions: sub.permissions as string[] }, opts);
        return json(res, 201, { data: { key: made.secret, user_id: made.userId, scopes: body.scopes } });
      }
      const key = ctx.keys.create(body.scopes as string[], opts);
      return json(res, 201, { data: { key: key.secret, id: key.id, scopes: key.scopes, rate_limit: key.rateLimit } });
    }
    case `POST ${ADMIN_PREFIX}/webhooks`: {
      const body = await readJsonObject(req);
      if (typeof body?.allow_local !== 'boolean') return bad(res, 'allow_local must be a boolean');
      familyState(ctx).allowLocalWebhooks = body.allow_local;
      return json(res, 200, { data: { allow_local: body.allow_local } });
    }
    case `POST ${ADMIN_PREFIX}/hooks/emit`: {
      const body = await readJsonObject(req);
      if (typeof body?.server_id !== 'string' || typeof body.event !== 'string') return bad(res, 'server_id and event are required');
      if (!ctx.state.servers.has(body.server_id)) return json(res, 404, { error: { code: 'not_found', message: 'Server not found' } });
      const data = body.data && typeof body.data === 'object' ? (body.data as Record<string, unknown>) : {};
      return json(res, 200, { data: { deliveries_started: emitEvent(ctx, body.server_id, body.event, data) } });
    }
    case `POST ${ADMIN_PREFIX}/archives`: {
      const body = await readJsonObject(req);
      const n = body?.filler_bytes;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 4 * 2 ** 30) return bad(res, 'filler_bytes must be a whole number of bytes up to 4 GiB');
      familyState(ctx).archiveFillerBytes = n;
      return json(res, 200, { data: { filler_bytes: n } });
    }
    case `GET ${ADMIN_PREFIX}/state`:
      return json(res, 200, {
        data: {
          account: ctx.state.account,
          servers: sortedServers(ctx.state).map((s) => ({
            ...serverObject(s), status: ctx.lifecycle.status(s), startup_queue: s.startupQueue, stored: s.stored,
          })),
          create_jobs: [...ctx.state.createJobs.values()],
          power_actions: ctx.state.powerActions.length,
          reinstalls: ctx.state.reinstalls.length,
          deleted_servers: ctx.state.deletedServers,
        },
      });
    case `GET ${ADMIN_PREFIX}/ad`: {
      const s = ctx.state.servers.get(url.searchParams.get('server_id') ?? '');
      if (!s) return json(res, 404, { error: { code: 'not_found', message: 'Server not found' } });
      s.adViewedAt = Date.now();
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`Ad viewed for ${s.name}. Retry the start within 5 minutes.\n`);
      return;
    }
    default:
      return json(res, 404, { error: { code: 'not_found', message: `No admin route ${route}` } });
  }
}
