import type { QueryValue } from '../../core/wire/http.js';
import type { Feature } from '../feature.js';
import { declaredValues } from './declared-fields.js';

// `query`: declared query parameters become flags, and the flags the query.

export const query: Feature = {
  name: 'query',
  flags({ leaf, addField }) {
    for (const f of leaf.op.query ?? []) addField(f);
  },
  values(d) {
    Object.assign(d.query, declaredValues(d.leaf.op.query, d.local, d.stdin) as Record<string, QueryValue>);
  },
};
