import { Exit, GshError } from '../../core/errors.js';
import type { RequestSpec } from '../../core/wire/http.js';
import { step } from '../../core/plan.js';
import type { Runtime } from '../../core/run/runtime.js';
import { onServers, type ServerFlags } from '../../core/fleet/fleet-command.js';
import { pollUntil } from '../../core/run/poll.js';
import { TERMINAL_JOB_STATES } from '../../core/fleet/wait.js';

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

/** One server or many (-s a,b, globs, --all-servers): one result per server, exit 11 when some failed. */
export async function runStatus(rt: Runtime, o: ServerFlags, wait: boolean): Promise<number | void> {
  return onServers(rt, { server: o.server, allServers: o.allServers, rollout: o, mutates: false }, async (client, t) => {
    const spec: RequestSpec = { method: 'GET', path: `/servers/${encodeURIComponent(t.id)}/init` };
    const then = wait ? [step('wait', `poll the provisioning job until it ends, for at most ${rt.waitLimitMs / 1000} s (--timeout)`)] : [];
    const job = async () => {
      const fetch = async () => ((await client.request<{ data?: InitJob }>(spec)).body?.data ?? {});
      return wait ? pollUntil(rt, `provisioning of ${t.name ?? t.id}`, fetch, (j) => TERMINAL_JOB_STATES.has(String(j.state)), describe) : fetch();
    };
    const failed = (j: InitJob) => {
      if (!wait || !FAILED.has(String(j.state))) return;
      const details = (j.errors ?? []).map(noteText);
      throw new GshError(`provisioning ${j.state}${details.length ? `: ${details.join('; ')}` : j.message ? `: ${j.message}` : ''}`, Exit.error);
    };
    return {
      plan: { requests: [spec], then },
      alone: async () => {
        const j = await job();
        await show(rt, j);
        failed(j);
      },
      inFleet: async () => {
        const j = await job();
        failed(j);
        return j;
      },
    };
  });
}
