import { ansi } from '../terminal/io.js';
import { oneLine } from '../terminal/terminal-text.js';
import type { Plan, ServerReference } from '../plan.js';
import type { RuntimeView } from './runtime-view.js';

// `--dry-run` output: on a terminal (and piped tables) what each server reference is, `METHOD
// URL`, the body, and what would follow; with -o json|jsonl|yaml the plan as data,
// `{servers?: [{ref, is, servers, known?, suggestions?}], requests: [{method, url, headers, body}], then}`.

export async function printPlan(rt: RuntimeView, plan: Plan): Promise<void> {
  const client = plan.requests.length ? await rt.client() : undefined;
  const requests = plan.requests.map((spec) => client!.describe(spec));
  const servers = rt.references;
  if (rt.format !== 'table') {
    const data = { ...(servers.length ? { servers } : {}), requests, then: plan.then, ...(plan.sent ? { sent: plan.sent } : {}) };
    if (rt.format === 'jsonl') rt.io.stdout.write(`${JSON.stringify(data)}\n`);
    else await rt.out.show(data);
    return;
  }
  const out = rt.io.stdout;
  const c = rt.io.color;
  // Names are the service's (and the ref and its "did you mean" near them): through the door on a
  // terminal, where colour keeps every SGR, so a name's own SGR (conceal, blink) would pass.
  const shown = out.isTTY === true ? (s: string) => oneLine(s) : (s: string) => s;
  for (const r of servers) out.write(`${ansi.dim('server', c)} ${describeReference(r, shown)}\n`);
  if (requests.length === 0) out.write(ansi.dim('No requests would be sent.\n', c));
  for (const r of requests) {
    out.write(`${ansi.bold(r.method, c)} ${r.url}\n`);
    if (r.body !== undefined) out.write(`${indent(typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2))}\n`);
  }
  for (const s of plan.then) out.write(`${ansi.dim('then:', c)} ${s.description}\n`);
  rt.note(plan.sent ? `Dry run: only ${plan.sent.description} ${plan.sent.requests === 1 ? 'was' : 'were'} sent; ${requests.length ? 'none of the requests above was' : 'nothing else was'}.` : 'Dry run: nothing was sent.');
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

/** One reference in words: `"lobby": the name of server 3f2a9c1e`; `shown` is applied to every name, id and ref (the door on a terminal). */
export function describeReference(r: ServerReference, shown: (s: string) => string = (s) => s): string {
  const known = r.known === 'remembered' ? ' (remembered)' : r.known === 'id:' ? ' (id:, never looked up)' : r.known === 'uuid' ? ' (a UUID, never looked up)' : '';
  const one = r.servers[0];
  switch (r.is) {
    case 'name':
      return `"${shown(r.ref)}": the name of server ${shown(String(one?.id))}${known}`;
    case 'id':
      return `"${shown(r.ref)}": a server id${one?.name !== undefined ? `, of ${shown(one.name)}` : ''}${known}`;
    case 'pattern':
      return `"${shown(r.ref)}": a name pattern matching ${r.servers.length} server${r.servers.length === 1 ? '' : 's'}: ${r.servers.map((s) => shown(s.name ?? s.id)).join(', ')}`;
    case 'nothing':
      return `"${shown(r.ref)}": matches no server name or id${r.suggestions?.length ? `; did you mean ${r.suggestions.map(shown).join(', ')}?` : ''}`;
  }
}
