import type { Principal } from '../auth.js';
import type { SandboxContext } from '../context.js';
import { findApplication } from '../demo-data.js';
import { ApiFailure } from '../envelope.js';
import type { HandlerRequest } from '../handlers/types.js';
import { canonical } from '../request.js';
import { maybeAgentOf } from './service.js';

// Checks the sandbox runs before a handler, for agent access tokens only (01-general-contract.md
// "Agent registration flow": Approvals and Account reach): a server deletion or a purchase (a
// paid server) needs the account owner's approval; an unclaimed temporary account reaches only
// its own server and cannot create more. The free-server ad view is the power model's own rule.

function purchase(req: HandlerRequest): boolean {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (body.plan !== undefined) return body.plan === 'paid';
  return findApplication(body.application ?? 'minecraft')?.free_tier === false;
}

/** Account reach: an unclaimed temporary account reaches only its own servers (lists included). */
export function agentReaches(ctx: SandboxContext, principal: Principal | undefined, serverId: string): boolean {
  const agent = maybeAgentOf(ctx);
  const identity = agent?.identityOf(principal);
  if (!agent || !identity) return true;
  const account = agent.accountOf(identity);
  return !(account.temporary && !account.claimed) || account.serverIds.has(serverId);
}

export function agentGate(req: HandlerRequest, ctx: SandboxContext): void {
  const agent = maybeAgentOf(ctx);
  const identity = agent?.identityOf(req.principal);
  if (!agent || !identity) return;
  const account = agent.accountOf(identity);
  const route = `${req.method} ${req.template}`;
  if (account.temporary && !account.claimed) {
    const serverId = req.params.server_id;
    if (serverId !== undefined && !agentReaches(ctx, req.principal, serverId)) throw new ApiFailure(404, 'not_found', 'Server not found');
    if (route === 'POST /servers') throw new ApiFailure(409, 'limit_reached', 'A temporary account has one free server; claim it to add more');
  }
  const needsApproval =
    route === 'DELETE /servers/{server_id}' ? `delete server ${req.params.server_id}` : route === 'POST /servers' && purchase(req) ? 'buy a paid server' : undefined;
  if (needsApproval) agent.requireApproval(identity, `${identity.id} ${req.method} ${req.path}\n${canonical(req.body)}`, needsApproval);
}
