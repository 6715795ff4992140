import type { SandboxContext } from '../context.js';
import type { ConsoleNode } from './node.js';

// Which console node belongs to which sandbox (REST handlers only get the context).
const nodes = new WeakMap<SandboxContext, ConsoleNode>();

export function registerNode(ctx: SandboxContext, node: ConsoleNode): void {
  nodes.set(ctx, node);
}

export function nodeFor(ctx: SandboxContext): ConsoleNode {
  const node = nodes.get(ctx);
  if (!node) throw new Error('console node not installed in this sandbox');
  return node;
}
