import { ApiError, GshError, UsageError } from '../errors.js';
import { type ApiClient, normalizeBaseUrl } from '../wire/http.js';
import { isLoopbackHost } from '../wire/transport-policy.js';

// Discovery for the agent flow (01-general-contract.md "Agent registration flow"): the
// authorization-server document under {auth_url} lists the enabled registration methods in
// agent_auth.identity_types_supported. {auth_url} is the base URL unless the API names another
// authorization server in the protected-resource document a 401's WWW-Authenticate points at.

export type AgentMethod = 'service_auth' | 'anonymous' | 'identity_assertion';

/** The claim grant as the contract writes it (its vendor segment is shown neutral). */
export const CLAIM_GRANT = 'urn:vendor:agent-auth:grant-type:claim';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

export interface AuthServer {
  /** {auth_url}, without a trailing slash. */
  authUrl: string;
  /** agent_auth.identity_types_supported; undefined when the document has none. */
  identityTypes: string[] | undefined;
  /** The claim grant type: the one grant_types_supported names, else the contract's. */
  claimGrantType: string;
}

const FLAG_OF: Record<AgentMethod, string> = {
  service_auth: '--email',
  anonymous: '--anonymous',
  identity_assertion: '--assertion',
};

/** A JSON document, bare or inside the `{data}` envelope. */
export function documentOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null) return {};
  const data = (body as { data?: unknown }).data;
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : (body as Record<string, unknown>);
}

/** The URL in `WWW-Authenticate: Bearer resource_metadata=<URL>` (quoted or not). */
export function resourceMetadataUrl(header: string | undefined): string | undefined {
  const m = /resource_metadata\s*=\s*(?:"([^"]+)"|([^\s,]+))/i.exec(header ?? '');
  return m?.[1] ?? m?.[2];
}

async function fetchDocument(client: ApiClient, url: string): Promise<Record<string, unknown>> {
  return documentOf((await client.request({ method: 'GET', path: url, auth: false })).body);
}

/** Where the protected-resource document is: named by a 401 to an unauthenticated GET /me. */
async function protectedResourceUrl(client: ApiClient): Promise<string> {
  try {
    await client.request({ method: 'GET', path: '/me', auth: false });
  } catch (err) {
    const named = err instanceof ApiError && err.status === 401 ? resourceMetadataUrl(err.wwwAuthenticate) : undefined;
    if (named) return named;
  }
  return `${client.baseUrl}/.well-known/oauth-protected-resource`;
}

export async function discover(client: ApiClient): Promise<AuthServer> {
  let authUrl = client.baseUrl;
  let meta: Record<string, unknown>;
  try {
    meta = await fetchDocument(client, `${authUrl}/.well-known/oauth-authorization-server`);
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
    const resource = await fetchDocument(client, await protectedResourceUrl(client));
    const servers = Array.isArray(resource.authorization_servers) ? resource.authorization_servers : [];
    const named = servers.find((s): s is string => typeof s === 'string');
    if (!named) {
      throw new GshError(`${client.baseUrl} publishes no authorization server for agents`, 1, 'Check the base URL, or log in with an API key (`gsh auth login`).');
    }
    authUrl = normalizeBaseUrl(named);
    // Identity assertions travel in its bodies: a service reached over TLS may not send them off in clear.
    if (new URL(client.baseUrl).protocol === 'https:' && new URL(authUrl).protocol === 'http:' && !isLoopbackHost(new URL(authUrl).hostname)) {
      throw new GshError(`${client.baseUrl} names a plain-http authorization server (${authUrl}); gsh sends no agent secrets there`, 1, 'The service must publish an https:// authorization server.');
    }
    meta = await fetchDocument(client, `${authUrl}/.well-known/oauth-authorization-server`);
  }
  const agentAuth = documentOf(meta.agent_auth);
  const types = agentAuth.identity_types_supported;
  const grants = Array.isArray(meta.grant_types_supported) ? meta.grant_types_supported : [];
  const claimGrant = grants.find((g): g is string => typeof g === 'string' && /^urn:[^:]+:agent-auth:grant-type:claim$/.test(g));
  return {
    authUrl,
    identityTypes: Array.isArray(types) ? types.filter((t): t is string => typeof t === 'string') : undefined,
    claimGrantType: claimGrant ?? CLAIM_GRANT,
  };
}

/** Refuses, before any registration call, a method the authorization server does not list. */
export function requireMethod(server: AuthServer, method: AgentMethod): void {
  const listed = server.identityTypes ?? [];
  if (listed.includes(method)) return;
  const offered = (Object.keys(FLAG_OF) as AgentMethod[]).filter((m) => listed.includes(m)).map((m) => `${FLAG_OF[m]} (${m})`);
  throw new UsageError(
    `this service does not offer the ${method} registration method (${FLAG_OF[method]})`,
    offered.length
      ? `It offers: ${offered.join(', ')}.`
      : 'It lists no agent registration method; log in with an API key instead (`gsh auth login`).',
  );
}
