import { fail, ok } from '../envelope.js';
import { queryValue } from '../request.js';
import type { HandlerMap } from './types.js';

// 02-endpoints-part-a.md "Account": GET /applications, not paginated; `kind` and `free_tier`
// filters; 400 for an invalid filter value.

const KINDS = ['game', 'application', 'database'];

export const handlers: HandlerMap = {
  'GET /applications': (req, ctx) => {
    const kind = queryValue(req.query, 'kind');
    const freeTier = queryValue(req.query, 'free_tier');
    if (kind !== undefined && !KINDS.includes(kind)) throw fail.badRequest(`kind must be one of ${KINDS.join(', ')}`);
    if (freeTier !== undefined && freeTier !== 'true' && freeTier !== 'false') throw fail.badRequest('free_tier must be true or false');
    const apps = ctx.state.applications.filter(
      (a) => (kind === undefined || a.kind === kind) && (freeTier === undefined || a.free_tier === (freeTier === 'true')),
    );
    return ok(apps.map((a) => ({ ...a })));
  },
};
