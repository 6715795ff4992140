import type { Feature } from '../feature.js';

// `verbs`: one command per value of a body field (`power start|stop|restart|kill`); the verb is
// the field's value (operations/leaves.ts makes the leaves).

export const verbs: Feature = {
  name: 'verbs',
  help({ op, verb }) {
    if (!verb || !op.verbs) return {};
    return { example: op.example.replace(new RegExp(`^gsh ${op.command} \\S+`), `gsh ${op.command} ${verb}`), request: `  (${op.verbs.field}=${verb})` };
  },
  values(d) {
    const { op, verb } = d.leaf;
    if (op.verbs && verb && d.body) d.body[op.verbs.field] = verb;
  },
};
