import type { Clock, SignalName, Signals } from '../core/run/context.js';
import { Exit } from '../core/errors.js';
import { ansi, type Streams } from '../core/terminal/io.js';
import { describeEvent } from './describe-event.js';
import { displayLine, labelledLine, resetOnExit } from './display.js';
import { displayWidth, door, visible } from '../core/terminal/terminal-text.js';
import type { ConsoleSessionInfo, Frame } from './protocol.js';
import { ConsoleSession, type ReconnectPolicy } from './session.js';
import { LineSink } from './sink.js';
import { PipedInput, TerminalInput, type PromptLine } from '../core/person/line-input.js';
import { QUIET_MS } from './attach.js';

// One console over many servers (issue 31, item 3): `gsh console attach -s 'lobby-*'` opens one
// session per server (each renewing and reconnecting on its own, as a single attach does) and
// prints every line prefixed with its server's name, coloured per server on a terminal; with
// --json / -o jsonl each socket event is a JSON object with server_id and server_name. Standard
// input is read only with --broadcast, and each line then goes to every server. --until ends once
// a line matched on every server (on any with --until-any); --timeout ends it with exit 10. A
// server whose socket ends for good (deleted, or the node refuses it again) is named on stderr
// and leaves the --until set: the run ends once the rest matched, with exit 11 (issue 36, item 6).

export interface ConsoleOf {
  id: string;
  name: string;
  fetchSession: () => Promise<ConsoleSessionInfo>;
}

export interface MultiOptions {
  io: Streams;
  signals: Signals;
  clock: Clock;
  servers: readonly ConsoleOf[];
  history: boolean;
  /** Typed or piped lines go to every server; otherwise stdin is not read. */
  broadcast: boolean;
  /** --read-only: stdin is not read because the user asked so (the note names no --broadcast). */
  readOnly?: boolean;
  json: boolean;
  color: boolean;
  /** --raw: lines exactly as they came, even to a terminal (core/terminal/terminal-text.ts). */
  raw?: boolean;
  reconnect?: ReconnectPolicy;
  until?: { re: RegExp; timeoutMs: number; any: boolean };
}

type End = 'eof' | 'interrupt' | 'terminate' | 'hangup' | 'quit' | 'matched' | 'timeout' | 'gone';
const EXIT: Record<End, number> = { eof: Exit.ok, interrupt: Exit.interrupted, terminate: Exit.terminated, hangup: 129, quit: 131, matched: Exit.ok, timeout: Exit.timedOut, gone: Exit.unavailable };

export async function attachMany(opts: MultiOptions): Promise<number> {
  const { io, clock } = opts;
  let detach!: (how: End) => void;
  const detached = new Promise<End>((resolve) => (detach = resolve));
  let ended = false;
  void detached.then(() => (ended = true));
  let prompt: (PromptLine & { close(): void }) | undefined;
  let piped: PipedInput | undefined;
  const width = Math.max(...opts.servers.map((s) => displayWidth(visible(s.name))));
  const matched = new Set<string>();
  const gone = new Map<string, number>();

  const sessions = opts.servers.map((server, index) => {
    const session: ConsoleSession = new ConsoleSession({
      fetchSession: server.fetchSession,
      replay: opts.history,
      onFrame: (frame) => show(server, index, frame),
      note: (text) => stderr('note', `${visible(server.name)}: ${text}`),
      warn: (text) => stderr('warn', `${visible(server.name)}: ${text}`),
      ...(opts.reconnect ? { reconnect: opts.reconnect } : {}),
    });
    return { server, session };
  });
  /** Whether a line with escape sequences reached stdout (then the terminal is reset at the end). */
  let escapesShown = false;
  const out = new LineSink(opts.raw ? io.rawStdout : io.stdout, {
    beforeWrite: () => io.stdoutTTY && prompt?.hide(),
    afterWrite: () => io.stdoutTTY && prompt?.show(),
    full: () => sessions.forEach((s) => s.session.pause()),
    drained: () => sessions.forEach((s) => s.session.resume()),
  });

  function stderr(kind: 'note' | 'warn', text: string): void {
    out.flush();
    if (io.stderrTTY) prompt?.hide();
    io.stderr.write(kind === 'note' ? `${ansi.dim(text, io.colorErr)}\n` : `${ansi.yellow('warning:', io.colorErr)} ${text}\n`);
    if (io.stderrTTY) prompt?.show();
  }

  function show(server: ConsoleOf, index: number, frame: Frame): void {
    if (ended) return;
    if (opts.json) out.push(`${JSON.stringify({ server_id: server.id, server_name: server.name, ...frame })}\n`);
    else {
      const shown = describeEvent(frame);
      if (shown) stderr(shown.kind, `${visible(server.name)}: ${shown.text}`);
      else if (frame.event === 'console output') {
        const line = frame.args?.[0] ?? '';
        escapesShown ||= (opts.raw === true || opts.color) && line.includes('\x1b');
        out.push(`${labelledLine(server.name, index, line, opts.color, width, opts.raw)}\n`);
      }
    }
    const line = frame.event === 'console output' ? frame.args?.[0] : undefined;
    if (opts.until && line !== undefined && opts.until.re.test(displayLine(line, false))) {
      matched.add(server.id);
      if (opts.until.any || untilMet()) detach('matched');
    }
  }

  /** --until on each server: every server still there has matched (a lost one no longer counts). */
  function untilMet(): boolean {
    const left = opts.servers.filter((s) => !gone.has(s.id));
    return left.length > 0 && left.every((s) => matched.has(s.id));
  }

  const onSignal: [SignalName, () => void][] = [
    ['SIGINT', () => detach('interrupt')], ['SIGTERM', () => detach('terminate')],
    ['SIGHUP', () => detach('hangup')], ['SIGQUIT', () => detach('quit')],
  ];
  for (const [signal, on] of onSignal) opts.signals.on(signal, on);
  if (opts.until) {
    const { re, timeoutMs, any } = opts.until;
    void (async () => {
      const deadline = clock.now() + timeoutMs;
      while (!ended && clock.now() < deadline) await clock.sleep(Math.min(250, deadline - clock.now()));
      if (ended) return;
      const waiting = opts.servers.filter((s) => !matched.has(s.id) && !gone.has(s.id)).map((s) => s.name);
      stderr('warn', `no console line matched /${re.source}/ within ${timeoutMs / 1000} s (--timeout)${any ? '' : ` on ${waiting.join(', ')}`}`);
      detach('timeout');
    })();
  }
  // A server whose session ends (deleted, or reconnecting gave up) leaves the others streaming.
  for (const { server, session } of sessions) {
    session.done.then(
      (end) => end === 'deleted' && lost(server, `was deleted; its console has ended`, Exit.notFound),
      (err: unknown) => lost(server, (err as Error).message, (err as { exitCode?: number }).exitCode ?? Exit.error),
    );
  }
  // With --until, a server lost for good leaves the set waited for: the others' matches end the
  // run, which then exits 11, since that server never matched (or can no longer be seen to).
  function lost(server: ConsoleOf, why: string, code: number): void {
    if (ended) return;
    const leaves = opts.until && !opts.until.any ? '; no longer waited for by --until' : '';
    stderr('warn', `${server.name} ${why}${leaves}`);
    gone.set(server.id, code);
    if (gone.size === opts.servers.length) detach('gone');
    else if (opts.until && !opts.until.any && untilMet()) detach('matched');
  }

  try {
    const started = Promise.allSettled(sessions.map((s) => s.session.start()));
    const early = await Promise.race([started.then(() => undefined), detached]);
    const how = early ?? (await Promise.race([detached, startInput()]));
    if (how === 'gone') return [...gone.values()][0] ?? EXIT.gone;
    if (how === 'matched') closingMatch();
    if (how === 'matched' && gone.size > 0) return Exit.someFailed;
    return EXIT[how];
  } finally {
    for (const [signal, on] of onSignal) opts.signals.off(signal, on);
    for (const { session } of sessions) session.close();
    prompt?.close();
    piped?.close();
    io.stdin.pause();
    await out.drain();
    door(io.rawStdout).write(resetOnExit(io.stdoutTTY, escapesShown));
  }

  /** The line that says why --until ended the view: which servers matched, and any that were lost. */
  function closingMatch(): void {
    const until = opts.until;
    if (!until) return;
    const name = (id: string) => visible(opts.servers.find((s) => s.id === id)?.name ?? id);
    const hit = [...matched].map(name);
    if (until.any) return stderr('note', `--until-any: a line matched /${until.re.source}/ on ${hit.join(', ')}; detached`);
    const lostOnes = opts.servers.filter((s) => gone.has(s.id)).map((s) => visible(s.name));
    if (lostOnes.length === 0) return stderr('note', `--until: a line matched /${until.re.source}/ on every server (${hit.join(', ')}); detached`);
    stderr('note', `--until: a line matched /${until.re.source}/ on ${hit.join(', ')}; not on ${lostOnes.join(', ')} (lost, exit 11); detached`);
  }

  /** Each line to every server that is connected; resolves once every frame is written. */
  function broadcast(text: string): Promise<void> {
    return Promise.all(sessions.map(({ server, session }) => new Promise<void>((resolve) => {
      try {
        const queued = session.send('send command', [text], (err) => {
          if (err) stderr('warn', `${server.name}: may not have been sent (${err.message}): ${text}`);
          resolve();
        });
        if (queued) return;
        stderr('warn', `${server.name}: the console session is not connected; not sent: ${text}`);
      } catch (err) {
        stderr('warn', `${server.name}: ${(err as Error).message}`);
      }
      resolve();
    }))).then(() => undefined);
  }

  function startInput(): Promise<End> {
    const names = opts.servers.map((s) => visible(s.name)).join(', ');
    const how = opts.readOnly ? 'read-only: standard input is not read' : !opts.broadcast ? 'standard input is not read (--broadcast sends lines to every server)' : io.stdinTTY ? 'what you type goes to every server' : 'each line of standard input goes to every server';
    stderr('note', `attached to ${opts.servers.length} servers (${names}); ${how}; Ctrl-C detaches, the servers keep running`);
    if (!opts.broadcast) return detached;
    const written: Promise<void>[] = [];
    const handlers = {
      line: (text: string) => {
        if (text.trim() !== '') written.push(broadcast(text));
      },
      end: () => {
        if (io.stdinTTY) return detach('eof');
        if (opts.until) return; // the match (or --timeout) ends it
        // Piped: once every line is written, show the answers for a moment, then detach.
        void Promise.all(written).then(() => clock.sleep(QUIET_MS)).then(() => detach('eof'));
      },
      interrupt: () => detach('interrupt'),
    };
    if (io.stdinTTY) {
      const promptStream = (io.stdoutTTY ? io.rawStdout : io.rawStderr) as unknown as NodeJS.WritableStream;
      prompt = new TerminalInput(io.stdin, promptStream, handlers, 'all> ');
    } else piped = new PipedInput(io.stdin, handlers);
    return detached;
  }
}
