import type { SandboxContext } from '../context.js';
import type { UpgradeHandler } from '../types.js';
import { ConsoleNode, type ConsoleNodeOptions } from './node.js';
import { nodeFor, registerNode } from './registry.js';

// Installs the console node into a sandbox (called by startSandbox) and finds it again for
// tests (`consoleNodeOf(sandbox)`).

export { ConsoleNode, type ConsoleNodeOptions, type ConsoleSessionBody } from './node.js';
export { handlers } from './handlers.js';

export function installConsoleNode(ctx: SandboxContext, upgrade: UpgradeHandler[], opts: ConsoleNodeOptions = {}): ConsoleNode {
  const node = new ConsoleNode(ctx, opts);
  registerNode(ctx, node);
  upgrade.push(node.upgrade);
  return node;
}

export function consoleNodeOf(sandbox: { extensions: { context: SandboxContext } }): ConsoleNode {
  return nodeFor(sandbox.extensions.context);
}
