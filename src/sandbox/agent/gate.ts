import type { Principal } from '../auth.js';
import type { SandboxContext } from '../context.js';
import { findApplication } from '../demo-data.js';
import { ApiFailure } from '../envelope.js';
import type { HandlerRequest } from '../handlers/types.js';
import { canonical } from '../request.js';
import { maybeAgentOf } from './service.js';

// Checks the sandbox runs before a handler, for agent access tokens only (01-general-contract.md
// "Agent registration flow": Approvals and Account reach): a server deletion or a purchase (a
// paid server) needs the account owner's approval; an unclaimed temporary account cannot create
// more servers. Which servers a credential reaches is `accountReaches`, a reach rule of the
// context (added by index.ts, applied by permissions.ts). The free-server ad view is the power
// model's own rule.

function purchase(req: HandlerRequest): boolean {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (body.plan !== undefined) return body.plan === 'paid';
  return findApplication(body.application ?? 'minecraft')?.free_tier === false;
}

/**
 * Account reach (01-general-contract.md "API keys" rule 3: a key reaches only servers its owning
 * account can reach; "Agent registration flow", Account reach). A server belongs to the unclaimed
 * temporary account holding it, else to the sandbox's one real account. API keys act for the real
 * account, an agent for its identity's account, so neither reaches the other's servers.
 */
export function accountReaches(ctx: SandboxContext, principal: Principal, serverId: string): boolean {
  const agent = maybeAgentOf(ctx);
  if (!agent) return true;
  const identity = agent.identityOf(principal);
  const caller = identity ? agent.accountOf(identity).id : ctx.state.account.id;
  const holder = [...agent.accounts.values()].find((a) => a.temporary && !a.claimed && a.serverIds.has(serverId));
  return (holder?.id ?? ctx.state.account.id) === caller;
}

export function agentGate(req: HandlerRequest, ctx: SandboxContext): void {
  const agent = maybeAgentOf(ctx);
  const identity = agent?.identityOf(req.principal);
  if (!agent || !identity) return;
  const account = agent.accountOf(identity);
  const route = `${req.method} ${req.template}`;
  if (account.temporary && !account.claimed && route === 'POST /servers') {
    throw new ApiFailure(409, 'limit_reached', 'A temporary account has one free server; claim it to add more');
  }
  const needsApproval =
    route === 'DELETE /servers/{server_id}' ? `delete server ${req.params.server_id}` : route === 'POST /servers' && purchase(req) ? 'buy a paid server' : undefined;
  if (needsApproval) agent.requireApproval(identity, `${identity.id} ${req.method} ${req.path}\n${canonical(req.body)}`, needsApproval);
}
