// The ready wait as a state machine (issue 43; ARCHITECTURE.md "The ready wait"). `--ready` sees
// one ordered stream of observations: the console socket's `status` events and lines, the status
// polls' answers, and the clock, each after the power request. Its two sources are each in order
// (one socket, one poll at a time), but not with each other: a poll may answer `starting` before
// the socket's `offline` of the same restart arrives. So each source keeps its own phase, and an
// `offline` or `stopping` is a crash only when the source that shows it has itself shown the new
// boot first; before that it is the restart's own stop (01-general-contract.md "Server runtime
// states": the transitions are not shown, so any order of them is expected). The tables below are
// the ones in ARCHITECTURE.md; a unit test reads the document and compares.

/** Where one source stands: `old` the run before the request, `down` the stop seen, `boot` the new boot seen. */
export type Phase = 'old' | 'down' | 'boot';
/** A source of status observations, each in order within itself. */
export type Source = 'socket' | 'poll';
/**
 * A state as a source showed it. `running-new` is a poll's `running` that proves a new run (its
 * uptime went back, or the restart stayed unseen for UNSEEN_RESTART_MS); `other` any state the
 * contract does not list.
 */
export type Seen = 'starting' | 'running' | 'running-new' | 'stopping' | 'offline' | 'other';

export const PHASES: readonly Phase[] = ['old', 'down', 'boot'];
export const SEEN: readonly Seen[] = ['starting', 'running', 'running-new', 'stopping', 'offline', 'other'];

/** Phase × state seen (by the same source) → next phase, or `crash` (exit 13). */
export const STREAM_TABLE: Readonly<Record<Phase, Readonly<Record<Seen, Phase | 'crash'>>>> = {
  old: { starting: 'boot', running: 'old', 'running-new': 'boot', stopping: 'down', offline: 'down', other: 'old' },
  down: { starting: 'boot', running: 'boot', 'running-new': 'boot', stopping: 'down', offline: 'down', other: 'down' },
  boot: { starting: 'boot', running: 'boot', 'running-new': 'boot', stopping: 'crash', offline: 'crash', other: 'boot' },
};

/** Observations other than a state, with the wait's end or notice they lead to. */
export type Event = 'ready line' | 'crash restart pending' | 'running 60 s, no ready line' | 'past --timeout';
export type End = 'ready' | 'crashed' | 'timed out';

/** Event (while the wait has not ended) → the wait's end, or `notice` (once, the wait goes on). */
export const EVENT_TABLE = {
  'ready line': 'ready',
  'crash restart pending': 'crashed',
  'running 60 s, no ready line': 'notice',
  'past --timeout': 'timed out',
} as const satisfies Readonly<Record<Event, End | 'notice'>>;

/** How long a server may run without its ready line before the wait says so (once). */
export const QUIET_RUNNING_MS = 60_000;

/** One observation of the stream. */
export type Observation =
  | { kind: 'state'; source: Source; seen: Seen }
  | { kind: 'line'; matches: boolean }
  | { kind: 'crash restart pending' }
  | { kind: 'clock' };

export interface WaitState {
  readonly phase: Readonly<Record<Source, Phase>>;
  /** When a source first showed the new boot running (the notice counts from here). */
  readonly runningSince?: number;
  readonly noticed: boolean;
  readonly end?: End;
  /** The state that ended it (crash). */
  readonly why?: { source: Source; seen: Seen };
}

/** What a step asks its driver to do. */
export type Effect = 'end' | 'notice' | undefined;

/**
 * The first state: a restart's sources start at `old` (the old run may still be shown); a start,
 * or `gsh wait --ready`, at `down` (the server is not up yet, so the next run is the new boot).
 */
export function initialState(restart: boolean): WaitState {
  const p: Phase = restart ? 'old' : 'down';
  return { phase: { socket: p, poll: p }, noticed: false };
}

/** The pure transition: one observation at `now` (the run's clock), with the --timeout deadline. */
export function step(w: WaitState, o: Observation, now: number, deadline: number): { next: WaitState; effect: Effect } {
  if (w.end) return { next: w, effect: undefined };
  const ended = (end: End, extra: Partial<WaitState> = {}) => ({ next: { ...w, ...extra, end }, effect: 'end' as const });
  switch (o.kind) {
    case 'state': {
      const to = STREAM_TABLE[w.phase[o.source]][o.seen];
      if (to === 'crash') return ended(EVENT_TABLE['crash restart pending'], { why: { source: o.source, seen: o.seen } });
      const running = to === 'boot' && (o.seen === 'running' || o.seen === 'running-new');
      const next: WaitState = {
        ...w,
        phase: { ...w.phase, [o.source]: to },
        ...(running && w.runningSince === undefined ? { runningSince: now } : {}),
      };
      return { next, effect: undefined };
    }
    case 'line':
      return o.matches ? ended(EVENT_TABLE['ready line']) : { next: w, effect: undefined };
    case 'crash restart pending':
      return ended(EVENT_TABLE['crash restart pending']);
    case 'clock': {
      if (now >= deadline) return ended(EVENT_TABLE['past --timeout']);
      if (!w.noticed && w.runningSince !== undefined && now - w.runningSince >= QUIET_RUNNING_MS) {
        return { next: { ...w, noticed: true }, effect: EVENT_TABLE['running 60 s, no ready line'] };
      }
      return { next: w, effect: undefined };
    }
  }
}

/** A runtime state as a source shows it, for the table (`running-new` is the poll's to decide). */
export function seenOf(state: string): Seen {
  return state === 'starting' || state === 'running' || state === 'stopping' || state === 'offline' ? state : 'other';
}
