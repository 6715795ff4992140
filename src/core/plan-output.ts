import { ansi } from './io.js';
import type { Plan } from './plan.js';
import type { RuntimeView } from './runtime-view.js';

// `--dry-run` output: on a terminal (and piped tables) `METHOD URL`, the body, and what would
// follow; with -o json|jsonl|yaml the plan as data, `{requests: [{method, url, headers, body}], then}`.

export async function printPlan(rt: RuntimeView, plan: Plan): Promise<void> {
  const client = plan.requests.length ? await rt.client() : undefined;
  const requests = plan.requests.map((spec) => client!.describe(spec));
  if (rt.format !== 'table') {
    const data = { requests, then: plan.then };
    if (rt.format === 'jsonl') rt.io.stdout.write(`${JSON.stringify(data)}\n`);
    else await rt.out.show(data);
    return;
  }
  const out = rt.io.stdout;
  const c = rt.io.color;
  if (requests.length === 0) out.write(ansi.dim('No requests would be sent.\n', c));
  for (const r of requests) {
    out.write(`${ansi.bold(r.method, c)} ${r.url}\n`);
    if (r.body !== undefined) out.write(`${indent(typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2))}\n`);
  }
  for (const s of plan.then) out.write(`${ansi.dim('then:', c)} ${s.description}\n`);
  rt.note('Dry run: nothing was sent.');
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}
