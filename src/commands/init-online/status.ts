import { Exit, GshError } from '../../core/errors.js';
import type { RequestSpec } from '../../core/http.js';
import { step } from '../../core/plan.js';
import type { Runtime } from '../../core/runtime.js';
import { serverIdOf } from '../../core/server-cache.js';
import { serverFlag } from '../../core/server-ref.js';
import { pollUntil, TERMINAL_JOB_STATES } from '../../core/wait.js';

// `gsh init status -s SERVER [--wait]`: GET /servers/{server_id}/init, the latest provisioning job
// (02-endpoints-part-a.md "Init templates and manifest validation"): phases content, files, env,
// registrations, run, finalize, each with its state; `partial` ends with warnings (exit 0, the
// warnings on stderr); with --wait, `failed` and `timed_out` exit 1 (ARCHITECTURE.md "Requests").

interface Note {
  phase?: string;
  field?: string;
  message?: string;
}

interface Phase {
  name?: string;
  state?: string;
  detail?: string;
  error?: Note;
  warnings?: Note[];
}

interface InitJob {
  job_id?: string;
  state?: string;
  progress?: number;
  message?: string;
  phases?: Phase[];
  warnings?: Array<Note | string>;
  errors?: Array<Note | string>;
}

const FAILED = new Set(['failed', 'timed_out']);

function noteText(n: Note | string): string {
  if (typeof n === 'string') return n;
  return [n.phase, n.field, n.message].filter((x) => x !== undefined && x !== '').join(': ');
}

function describe(job: InitJob): string {
  const running = job.phases?.find((p) => p.state === 'running')?.name;
  return `${job.state ?? 'unknown'}${typeof job.progress === 'number' ? ` ${job.progress}%` : ''}${running ? ` (${running})` : ''}`;
}

async function show(rt: Runtime, job: InitJob): Promise<void> {
  if (rt.format !== 'table') {
    await rt.out.show(job);
  } else {
    rt.note(`Provisioning ${job.job_id ?? ''}: ${describe(job)}${job.message ? ` — ${job.message}` : ''}`);
    const rows = (job.phases ?? []).map((p) => ({
      phase: p.name,
      state: p.state,
      detail: p.error ? noteText(p.error) : [p.detail, p.warnings?.length ? `${p.warnings.length} warning${p.warnings.length === 1 ? '' : 's'}` : ''].filter(Boolean).join('; '),
    }));
    await rt.out.show(rows, { columns: ['phase', 'state', 'detail'] });
  }
  for (const w of job.warnings ?? []) rt.warn(noteText(w));
}

export async function runStatus(rt: Runtime, server: string | undefined, wait: boolean): Promise<number | void> {
  const ref = serverFlag(server, rt.env);
  const client = await rt.client();
  const spec: RequestSpec = { method: 'GET', path: `/servers/${encodeURIComponent(await serverIdOf(rt, client, ref))}/init` };
  const then = wait ? [step('wait', `poll the provisioning job until it ends, for at most ${rt.waitLimitMs / 1000} s (--timeout)`)] : [];
  return rt.submit({ requests: [spec], then }, async () => {
    const fetch = async () => ((await client.request<{ data?: InitJob }>(spec)).body?.data ?? {});
    const job = wait
      ? await pollUntil(rt, `provisioning of ${ref}`, fetch, (j) => TERMINAL_JOB_STATES.has(String(j.state)), describe)
      : await fetch();
    await show(rt, job);
    if (wait && FAILED.has(String(job.state))) {
      const details = (job.errors ?? []).map(noteText);
      throw new GshError(`provisioning ${job.state}${details.length ? `: ${details.join('; ')}` : job.message ? `: ${job.message}` : ''}`, Exit.error);
    }
  });
}
