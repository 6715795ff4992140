import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { appendLineSynced } from '../disk/disk.js';
import { UsageError } from '../errors.js';
import { shellLine } from '../shell-words.js';

// Journals (README "Rollouts"): --journal FILE appends each target's outcome as it finishes, one
// JSON line each, through the disk door (appendLineSynced: one O_APPEND write under a lock, then
// fsync), so two runs may write one journal and a crash loses no line already written. A run
// starts with a `run` line naming its command and its targets, so `gsh fleet report` can tell a
// target that never ran from one that succeeded. --resume FILE runs the same command line only on
// the targets the journal does not show done.

export const JOURNAL_VERSION = 1;

interface Line {
  journal: typeof JOURNAL_VERSION;
  kind: 'run' | 'result';
  /** When it was written (the run's clock), ISO 8601. */
  at: string;
  /** The command line (journalCommand): a resume must be the same command. */
  command: string;
}

export interface RunLine extends Line {
  kind: 'run';
  targets: { id: string; name?: string }[];
}

export interface ResultLine extends Line {
  kind: 'result';
  server_id: string;
  server_name: string | null;
  ok: boolean;
  exit_code: number;
  interrupted?: true;
  /** What the change did (core/outcome.ts); null for a read. */
  outcome: string | null;
  idempotency_key: string | null;
  message?: string;
  step?: string;
  resume?: string;
  replay?: string;
}

/** What a fleet result gives the journal (fleet.ts TargetResult, structurally). */
export interface Finished {
  server_id: string | null;
  server_name: string | null;
  ok: boolean;
  exit_code: number;
  interrupted?: true;
  error?: { message: string; outcome: string | null; idempotency_key: string | null; step?: string; resume?: string; replay?: string };
}

// How the output is shown or traced changes nothing a run does: the same command either way. A
// dry run writes no journal; `--dry-run … --resume FILE` previews the resume of the real run.
const SHOWING = new Set(['-o', '--output', '--color', '--journal', '--resume']);
const SHOWING_SWITCHES = new Set(['--json', '--debug', '--no-color', '--no-header', '-y', '--yes', '--dry-run']);

/** The command line a journal names: argv without the journal, the output format or tracing. */
export function journalCommand(argv: readonly string[]): string {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (SHOWING.has(a)) i++;
    else if (SHOWING_SWITCHES.has(a) || /^(--(output|color|journal|resume)=|-o.)/.test(a)) continue;
    else kept.push(a);
  }
  return shellLine(['gsh', ...kept]);
}

/** --journal and --resume, checked while planning: a directory that is there, a file that is a file. */
export function checkJournalFile(file: string, flag: '--journal' | '--resume'): void {
  const st = statSync(file, { throwIfNoEntry: false });
  if (flag === '--resume' && !st) throw new UsageError(`--resume ${file}: no such file`, 'Give the journal an earlier run wrote with --journal.');
  if (st && !st.isFile()) throw new UsageError(`${flag} ${file}: not a regular file`);
  const dir = statSync(dirname(file), { throwIfNoEntry: false });
  if (!dir?.isDirectory()) throw new UsageError(`${flag} ${file}: its directory ${dirname(file)} does not exist`);
}

/** Every line of one journal, checked; a last line cut short (a crash mid-write) is left out. */
export function readJournal(file: string): (RunLine | ResultLine)[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const lines = text.split('\n');
  const out: (RunLine | ResultLine)[] = [];
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      if (i === lines.length - 1) continue;
      throw new UsageError(`${file}:${i + 1}: not a journal line (JSON expected)`);
    }
    const l = line as { journal?: unknown; kind?: unknown; command?: unknown; at?: unknown; server_id?: unknown };
    if (l.journal !== JOURNAL_VERSION || (l.kind !== 'run' && l.kind !== 'result') || typeof l.command !== 'string' || typeof l.at !== 'string') {
      throw new UsageError(`${file}:${i + 1}: not a gsh journal line (version ${JOURNAL_VERSION})`);
    }
    if (l.kind === 'result' && typeof l.server_id !== 'string') throw new UsageError(`${file}:${i + 1}: a result without a server_id`);
    out.push(line as RunLine | ResultLine);
  }
  return out;
}

/** Each server's last result in the lines (the later line wins: a resumed run comes after). */
export function lastResults(lines: readonly (RunLine | ResultLine)[]): Map<string, ResultLine> {
  const last = new Map<string, ResultLine>();
  for (const l of lines) if (l.kind === 'result') last.set(l.server_id, l);
  return last;
}

/**
 * Whether a target needs no more running: it succeeded, or its change was sent and may have acted
 * (applied, unknown): running it again could act twice, so its own line (the wait's resume, the
 * replay with its key) is the way on, not the command again.
 */
export function isDone(r: ResultLine): boolean {
  return r.ok || r.outcome === 'applied' || r.outcome === 'unknown';
}

/** What --resume reads: the servers done, by id, from a journal of this same command line. */
export function doneInJournal(file: string, command: string): Map<string, ResultLine> {
  const lines = readJournal(file);
  const commands = new Set(lines.map((l) => l.command));
  if (commands.size && !commands.has(command)) {
    throw new UsageError(`--resume ${file}: the journal is of another command: ${[...commands][0]}`, `Resume with that same command line (the output format may differ): this one is ${command}`);
  }
  return new Map([...lastResults(lines)].filter(([, r]) => isDone(r)));
}

/** The journal a run writes: its `run` line, then one line per target as it finishes. */
export class JournalWriter {
  private failed = false;

  constructor(private readonly file: string, private readonly command: string, private readonly now: () => number, private readonly warn: (line: string) => void) {}

  start(targets: readonly { id: string; name?: string }[]): void {
    this.write({ journal: JOURNAL_VERSION, kind: 'run', at: this.at(), command: this.command, targets: targets.map((t) => ({ id: t.id, ...(t.name !== undefined ? { name: t.name } : {}) })) } satisfies RunLine);
  }

  record(r: Finished): void {
    if (r.server_id === null) return;
    const e = r.error;
    this.write({
      journal: JOURNAL_VERSION, kind: 'result', at: this.at(), command: this.command,
      server_id: r.server_id, server_name: r.server_name, ok: r.ok, exit_code: r.exit_code,
      ...(r.interrupted ? { interrupted: true } : {}),
      outcome: e?.outcome ?? null, idempotency_key: e?.idempotency_key ?? null,
      ...(e ? { message: e.message } : {}),
      ...(e?.step ? { step: e.step } : {}),
      ...(typeof e?.resume === 'string' ? { resume: e.resume } : {}),
      ...(typeof e?.replay === 'string' ? { replay: e.replay } : {}),
    } satisfies ResultLine);
  }

  private at(): string {
    return new Date(this.now()).toISOString();
  }

  /** A journal that cannot be written is said once; the run goes on (its results are printed as ever). */
  private write(line: RunLine | ResultLine): void {
    try {
      appendLineSynced(this.file, JSON.stringify(line));
    } catch (err) {
      if (this.failed) return;
      this.failed = true;
      this.warn(`--journal ${this.file}: cannot be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); this run's outcomes are not journaled`);
    }
  }
}

/** One server of a report: its last result in any of the journals, or that it never ran. */
export interface Reported {
  server_id: string;
  server_name: string | null;
  status: 'ok' | 'failed' | 'interrupted' | 'not_run';
  exit_code: number | null;
  outcome: string | null;
  at: string | null;
  journal: string;
  message?: string;
  resume?: string;
  replay?: string;
}

/** Several journals (a CI matrix's artefacts) as one: every target any run named, with its last result. */
export function mergeJournals(files: readonly string[]): Reported[] {
  const targets = new Map<string, { name: string | null; journal: string }>();
  const last = new Map<string, { r: ResultLine; journal: string }>();
  for (const file of files) {
    const lines = readJournal(file);
    for (const l of lines) {
      if (l.kind === 'run') for (const t of l.targets) if (!targets.has(t.id)) targets.set(t.id, { name: t.name ?? null, journal: file });
      if (l.kind === 'result') {
        const before = last.get(l.server_id);
        // Across journals the later result (by time) wins; within one, the later line.
        if (!before || before.r.at <= l.at) last.set(l.server_id, { r: l, journal: file });
        if (!targets.has(l.server_id)) targets.set(l.server_id, { name: l.server_name, journal: file });
      }
    }
  }
  if (!targets.size) throw new UsageError(`no run in ${files.join(', ')}: the journals are empty`);
  return [...targets].map(([id, t]): Reported => {
    const got = last.get(id);
    if (!got) return { server_id: id, server_name: t.name, status: 'not_run', exit_code: null, outcome: null, at: null, journal: t.journal };
    const r = got.r;
    return {
      server_id: id, server_name: r.server_name ?? t.name, status: r.ok ? 'ok' : r.interrupted ? 'interrupted' : 'failed',
      exit_code: r.exit_code, outcome: r.outcome, at: r.at, journal: got.journal,
      ...(r.message !== undefined ? { message: r.message } : {}),
      ...(r.resume !== undefined ? { resume: r.resume } : {}),
      ...(r.replay !== undefined ? { replay: r.replay } : {}),
    };
  });
}
