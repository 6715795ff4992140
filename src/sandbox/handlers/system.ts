import { accessText } from '../../operations/access-text.js';
import { keyMetadata } from '../auth.js';
import { ok } from '../envelope.js';
import type { SandboxContext } from '../context.js';
import type { HandlerMap } from './types.js';

// 02-endpoints-part-a.md "System", plus the protected-resource discovery document every 401
// points at (01-general-contract.md "Agent registration flow").

function operationLines(ctx: SandboxContext): string[] {
  return ctx.router.routes
    .filter((r) => r.op)
    .sort((a, b) => (a.template === b.template ? (a.method < b.method ? -1 : 1) : a.template < b.template ? -1 : 1))
    .map((r) => {
      const { scope } = accessText(r.op!);
      return `- \`${r.method} ${r.template}\`: ${r.op!.summary}${scope ? ` (scope \`${scope}\`)` : ''}`;
    });
}

function openapi(ctx: SandboxContext): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ctx.router.routes) {
    if (!r.op) continue;
    const path = r.template.replace(/<([^>]+)>/g, '{$1}');
    const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const { scope } = accessText(r.op);
    (paths[path] ??= {})[r.method.toLowerCase()] = {
      summary: r.op.summary,
      ...(r.op.auth === 'none' ? { security: [] } : {}),
      ...(scope ? { 'x-scope': scope } : {}),
      parameters: [
        ...params,
        ...(r.op.query ?? []).map((q) => ({ name: q.name, in: 'query', required: !!q.required, description: q.description })),
      ],
      responses: { default: { description: 'See the contract' } },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Game Server Hosting Public API (gsh sandbox)', version: '2' },
    servers: [{ url: ctx.baseUrl }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}

export const handlers: HandlerMap = {
  'GET /health': { auth: 'none', handle: () => ok({ object: 'health', status: 'ok' }) },

  'GET /me': (req, ctx) => {
    const key = req.principal?.key;
    return ok({
      account: { ...ctx.state.account },
      ...(key ? { key: keyMetadata(key) } : {}),
    });
  },

  'GET /docs': {
    auth: 'none',
    handle: (_req, ctx) => ({ status: 308, headers: { Location: `${ctx.baseUrl}/llms-full.txt` }, raw: { contentType: 'text/plain; charset=utf-8', text: '' } }),
  },

  'GET /llms.txt': {
    auth: 'none',
    handle: (_req, ctx) => ({
      status: 200,
      raw: {
        contentType: 'text/markdown; charset=utf-8',
        text: `# Game Server Hosting Public API v2 (sandbox)\n\nBase URL: ${ctx.baseUrl}\n\n- [Full documentation](${ctx.baseUrl}/llms-full.txt)\n- [OpenAPI](${ctx.baseUrl}/openapi.json)\n`,
      },
    }),
  },

  'GET /llms-full.txt': {
    auth: 'none',
    handle: (_req, ctx) => ({
      status: 200,
      raw: {
        contentType: 'text/markdown; charset=utf-8',
        text: `# Game Server Hosting Public API v2 (sandbox)\n\nBase URL: ${ctx.baseUrl}\nAuthenticate with \`Authorization: Bearer <API_KEY>\`.\n\n## Operations\n\n${operationLines(ctx).join('\n')}\n`,
      },
    }),
  },

  // A machine-readable document, served as is rather than inside {data}.
  'GET /openapi.json': { auth: 'none', handle: (_req, ctx) => ({ status: 200, raw: { contentType: 'application/json; charset=utf-8', text: JSON.stringify(openapi(ctx)) } }) },

  // RFC 9728 document (not enveloped): the URL in every 401's WWW-Authenticate.
  'GET /.well-known/oauth-protected-resource': {
    auth: 'none',
    handle: (_req, ctx) => ({
      status: 200,
      raw: {
        contentType: 'application/json; charset=utf-8',
        text: JSON.stringify({
          resource: ctx.baseUrl,
          authorization_servers: [ctx.baseUrl],
          bearer_methods_supported: ['header'],
          scopes_supported: ['*', 'servers:*'],
        }),
      },
    }),
  },
};
