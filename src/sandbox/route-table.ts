import type { Operation } from '../operations/types.js';

// The routes as handlers see them (`ctx.router`): which templates exist and which operation each
// serves. Apart from router.ts, whose routes also carry their handlers, so that the context
// (context.ts), which every handler receives, does not depend on the handlers' types.

export interface RouteInfo {
  method: string;
  template: string;
  /** The registry entry, when the registry declares this route. */
  op?: Operation;
}

export interface RouteTable {
  readonly routes: readonly RouteInfo[];
  /** Every template (any method), for structure questions the generic handler asks. */
  readonly templates: ReadonlySet<string>;
  get(method: string, template: string): RouteInfo | undefined;
}
