import { isoSeconds } from '../clock.js';
import type { SandboxContext } from '../context.js';
import { ApiFailure } from '../envelope.js';
import { DURATIONS } from '../lifecycle.js';
import { normalize } from '../node/file-tree.js';
import { treeOf } from '../node/server-files.js';
import { PERMISSIONS } from '../../operations/vocabulary.js';
import { grant, usersOf } from '../permissions.js';
import type { ServerRecord } from '../state.js';
import type { Manifest } from './manifest.js';

// The init provisioning job at GET /servers/{server_id}/init (02-endpoints-part-a.md "Init
// templates and manifest validation"): phases in order content, files, env, registrations, run,
// finalize. content, files and env are hard: a failure fails the job with a precise error and the
// later phases are skipped. registrations and run are soft: they record warnings and go on, and
// the job ends `partial` when warnings exist. finalize is not classified by the contract; it is
// soft here (it only settles the power state).
//
// What fails in the sandbox, so every path can be tried: a download from a host under `.invalid`
// (RFC 6761: never resolves) fails `content`; a file written over a directory of the server
// (`world`) fails `files`; an `access` grant to someone who is not a panel user (the sandbox knows
// demo, alex, sam, kim at example.com) or with an unknown permission is a `registrations` warning.
// The contract's known limitation is a `content` warning: with direct plugin/mod downloads,
// extractable archive assets are skipped.

export const INIT_PHASES = ['content', 'files', 'env', 'registrations', 'run', 'finalize'] as const;
type PhaseName = (typeof INIT_PHASES)[number];
const HARD: ReadonlySet<PhaseName> = new Set(['content', 'files', 'env']);

interface Note {
  field?: string;
  message: string;
}

interface Outcome {
  detail: string;
  warnings?: Note[];
  /** Hard phases only: the job fails with it. */
  error?: Note;
  /** Simulated time the phase needs beyond the base phase time (waiting for a boot). */
  extraMs?: number;
}

interface PhaseRecord {
  name: PhaseName;
  state: 'pending' | 'running' | 'completed' | 'failed' | 'skipped';
  detail?: string;
  warnings?: Note[];
  error?: Note;
}

type Phase = (ctx: SandboxContext, s: ServerRecord, m: Manifest) => Outcome;

function entries(m: Manifest, key: string): Array<Record<string, unknown>> {
  const v = m[key];
  return Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];
}

function runCommands(m: Manifest): unknown[] {
  const run = m.run;
  if (Array.isArray(run)) return run;
  if (typeof run === 'object' && run !== null && Array.isArray((run as Manifest).commands)) return (run as Manifest).commands as unknown[];
  return [];
}

function unresolvable(url: unknown): string | undefined {
  if (typeof url !== 'string' || !URL.canParse(url)) return undefined;
  const host = new URL(url).hostname;
  return host === 'invalid' || host.endsWith('.invalid') ? host : undefined;
}

const content: Phase = (_ctx, _s, m) => {
  const sections = ['plugins', 'mods', 'assets'] as const;
  let downloads = 0;
  for (const section of sections) {
    for (const [i, entry] of entries(m, section).entries()) {
      if (entry.url === undefined) continue;
      downloads++;
      const host = unresolvable(entry.url);
      if (host) return { detail: 'download failed', error: { field: `${section}[${i}].url`, message: `download failed: ${host} does not resolve` } };
    }
  }
  const direct = [...entries(m, 'plugins'), ...entries(m, 'mods')].some((e) => e.source === 'url');
  const warnings = direct
    ? entries(m, 'assets').flatMap((a, i) => (a.extract === true
      ? [{ field: `assets[${i}]`, message: 'extractable archive skipped: the manifest also downloads plugins or mods directly (known limitation)' }]
      : []))
    : [];
  return { detail: `${downloads} download${downloads === 1 ? '' : 's'}`, warnings };
};

const files: Phase = (ctx, s, m) => {
  const tree = treeOf(ctx, s.id);
  const list = entries(m, 'files');
  for (const [i, f] of list.entries()) {
    try {
      const path = normalize(f.path, `files[${i}].path`);
      const data = typeof f.content === 'string' ? Buffer.from(f.content, 'utf8') : Buffer.from(String(f.content_base64), 'base64');
      const existing = tree.get(path);
      const written = tree.write(path, f.append === true && existing?.type === 'file' ? Buffer.concat([existing.data, data]) : data);
      if (typeof f.mode === 'string') written.mode = f.mode;
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
      return { detail: 'write failed', error: { field: `files[${i}].path`, message: `cannot write ${String(f.path)}: ${err.message}` } };
    }
  }
  return { detail: `${list.length} file${list.length === 1 ? '' : 's'} written` };
};

const env: Phase = (_ctx, _s, m) => {
  const count = typeof m.env === 'object' && m.env !== null ? Object.keys(m.env).length : 0;
  return { detail: `${count} variable${count === 1 ? '' : 's'} set` };
};

const registrations: Phase = (ctx, s, m) => {
  const warnings: Note[] = [];
  const users = [...usersOf(ctx).users.values()];
  let granted = 0;
  for (const [i, a] of entries(m, 'access').entries()) {
    const user = users.find((u) => u.id === a.user_id || u.username === a.username || u.email === a.email);
    const who = String(a.email ?? a.username ?? a.user_id);
    if (!user) {
      warnings.push({ field: `access[${i}]`, message: `no panel user matches ${who}; grant skipped` });
      continue;
    }
    if (user.id === ctx.state.account.id) {
      warnings.push({ field: `access[${i}]`, message: `${who} owns the server and has every permission; grant skipped` });
      continue;
    }
    const asked = Array.isArray(a.permissions) ? a.permissions.map(String) : [];
    const known = asked.filter((p) => (PERMISSIONS as readonly string[]).includes(p));
    for (const p of asked.filter((x) => !known.includes(x))) warnings.push({ field: `access[${i}].permissions`, message: `unknown permission ${p} skipped` });
    grant(ctx, s.id, user.id, known);
    granted++;
  }
  const schedules = entries(m, 'schedules').length;
  const hooks = entries(m, 'hooks').length;
  return { detail: `${schedules} schedules, ${granted} access grants, ${hooks} hooks`, warnings };
};

const run: Phase = (ctx, s, m) => {
  const commands = runCommands(m);
  if (commands.length === 0) return { detail: 'nothing to run' };
  if (s.state === 'offline') {
    try {
      ctx.lifecycle.power(s, 'start');
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
      return { detail: 'not run', warnings: [{ field: 'run', message: `the server could not start (${err.message}); commands not sent` }] };
    }
  }
  return { detail: `${commands.length} console command${commands.length === 1 ? '' : 's'} sent`, extraMs: DURATIONS.boot };
};

const finalize: Phase = (ctx, s, m) => {
  const run = m.run;
  const stopAtEnd = typeof run === 'object' && run !== null && !Array.isArray(run) && (run as Manifest).final_state === 'stopped';
  if (!stopAtEnd || s.state === 'offline') return { detail: `server ${s.state}` };
  try {
    ctx.lifecycle.power(s, 'stop');
  } catch (err) {
    if (!(err instanceof ApiFailure)) throw err;
    return { detail: `server ${s.state}`, warnings: [{ field: 'run.final_state', message: `the server could not be stopped (${err.message})` }] };
  }
  return { detail: 'server stopped (run.final_state)', extraMs: DURATIONS.shutdown };
};

const PHASES: Record<PhaseName, Phase> = { content, files, env, registrations, run, finalize };

/** Starts the job for a server that was just created with an init manifest. */
export function startProvisioning(ctx: SandboxContext, s: ServerRecord, manifest: Manifest): void {
  const path = `/servers/${s.id}/init`;
  const phases: PhaseRecord[] = INIT_PHASES.map((name) => ({ name, state: 'pending' }));
  const warnings: Array<Note & { phase: PhaseName }> = [];
  const job: Record<string, unknown> = {
    object: 'init_job',
    job_id: `init_${ctx.rng.hex(12)}`,
    server_id: s.id,
    state: 'queued',
    progress: 0,
    message: 'Waiting to provision',
    phases,
    warnings,
    created_at: isoSeconds(),
  };
  ctx.state.jobs.set(path, job);
  const alive = () => ctx.state.jobs.get(path) === job && ctx.state.servers.get(s.id) === s;

  const step = (i: number): void => {
    const phase = phases[i];
    if (!phase || !alive()) return;
    Object.assign(job, { state: 'running', message: `Phase ${phase.name}` });
    phase.state = 'running';
    const outcome = PHASES[phase.name](ctx, s, manifest);
    ctx.clock.after(DURATIONS.initPhase + (outcome.extraMs ?? 0), () => {
      if (!alive()) return;
      phase.detail = outcome.detail;
      if (outcome.warnings?.length) {
        phase.warnings = outcome.warnings;
        warnings.push(...outcome.warnings.map((w) => ({ phase: phase.name, ...w })));
      }
      job.progress = Math.round(((i + 1) / phases.length) * 100);
      if (outcome.error && HARD.has(phase.name)) {
        phase.state = 'failed';
        phase.error = outcome.error;
        for (const later of phases.slice(i + 1)) later.state = 'skipped';
        const where = outcome.error.field ? `${outcome.error.field}: ` : '';
        Object.assign(job, {
          state: 'failed',
          message: `Phase ${phase.name} failed: ${where}${outcome.error.message}`,
          errors: [{ phase: phase.name, ...outcome.error }],
        });
        return;
      }
      phase.state = 'completed';
      if (i < phases.length - 1) {
        step(i + 1);
        return;
      }
      Object.assign(job, warnings.length
        ? { state: 'partial', message: `Provisioning finished with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` }
        : { state: 'completed', message: 'Provisioning completed' });
    });
  };
  ctx.clock.after(DURATIONS.initPhase, () => step(0));
}
