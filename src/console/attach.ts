import type { Clock, SignalName, Signals } from '../core/run/context.js';
import { ansi, type Streams } from '../core/terminal/io.js';
import { Exit, GshError } from '../core/errors.js';
import { door, forTerminal } from '../core/terminal/terminal-text.js';
import { describeEvent } from './describe-event.js';
import { displayLine, resetOnExit } from './display.js';
import type { ConsoleSessionInfo, Frame } from './protocol.js';
import { ConsoleSession, type ReconnectPolicy } from './session.js';
import { LineSink } from './sink.js';
import { PipedInput, TerminalInput, type PromptLine } from '../core/person/line-input.js';

// `gsh console attach` (issue 5, item 1): console output on stdout as it arrives, everything else
// on stderr (dimmed on a terminal), typed lines sent as `send command`. Ctrl-C or Ctrl-D detaches
// and leaves the server running. Piped stdin is a script: each line is sent, and its end detaches
// once every command is acknowledged (see `finishPipe`). With --read-only stdin is not read at all,
// so output streams until Ctrl-C.

export interface AttachOptions {
  io: Streams;
  signals: Signals;
  clock: Clock;
  label: string;
  fetchSession: () => Promise<ConsoleSessionInfo>;
  /** Replay recent output first (`send logs`). */
  history: boolean;
  readOnly: boolean;
  /** One JSON object per socket event on stdout. */
  json: boolean;
  /** ANSI kept in console lines. */
  color: boolean;
  /** --raw: console lines exactly as they came, even to a terminal (core/terminal/terminal-text.ts). */
  raw?: boolean;
  reconnect?: ReconnectPolicy;
  /** --until: detach (exit 0) after the first console line matching `re`; exit 10 after `timeoutMs`. */
  until?: { re: RegExp; timeoutMs: number };
}

/** After the last piped command: output is shown until the node's answers have been quiet this long… */
export const QUIET_MS = 300;
/** …but no longer than this, on a console that never stops talking. */
export const LINGER_MS = 2000;

/** The frames that answer a command (stats and token events come regardless). */
const ANSWERS = new Set(['console output', 'daemon message', 'daemon error']);

type Detach = 'eof' | 'unsent' | 'interrupt' | 'terminate' | 'hangup' | 'quit' | 'matched' | 'timeout';

export async function attach(opts: AttachOptions): Promise<number> {
  const { io, clock } = opts;
  let prompt: (PromptLine & { close(): void }) | undefined;
  let piped: PipedInput | undefined;
  let detach!: (how: Detach) => void;
  const detached = new Promise<Detach>((resolve) => (detach = resolve));
  /** One per piped command: true once its frame was written to the socket. */
  const written: Promise<boolean>[] = [];
  let lastAnswerAt = 0;
  /** Whether a line with escape sequences reached stdout (then the terminal is reset at the end). */
  let escapesShown = false;

  const session: ConsoleSession = new ConsoleSession({
    fetchSession: opts.fetchSession,
    replay: opts.history,
    onFrame: (frame) => show(frame),
    note: (text) => stderr('note', text),
    warn: (text) => stderr('warn', text),
    ...(opts.reconnect ? { reconnect: opts.reconnect } : {}),
  });
  const out = new LineSink(opts.raw ? io.rawStdout : io.stdout, {
    beforeWrite: () => io.stdoutTTY && prompt?.hide(),
    afterWrite: () => io.stdoutTTY && prompt?.show(),
    full: () => session.pause(),
    drained: () => session.resume(),
  });

  function stderr(kind: 'note' | 'warn', text: string): void {
    out.flush(); // keep stdout and stderr in the order things happened
    if (io.stderrTTY) prompt?.hide();
    const shown = forTerminal(text, io.stderrTTY);
    io.stderr.write(kind === 'note' ? `${ansi.dim(shown, io.colorErr)}\n` : `${ansi.yellow('warning:', io.colorErr)} ${shown}\n`);
    if (io.stderrTTY) prompt?.show();
  }

  function show(frame: Frame): void {
    if (ANSWERS.has(frame.event)) lastAnswerAt = clock.now();
    if (opts.json) {
      out.push(`${JSON.stringify(frame)}\n`);
      return untilMatched(frame);
    }
    const shown = describeEvent(frame);
    if (shown) return stderr(shown.kind, shown.text);
    if (frame.event === 'console output') {
      const line = frame.args?.[0] ?? '';
      escapesShown ||= (opts.raw || opts.color) && line.includes('\x1b');
      out.push(`${opts.raw ? line : displayLine(line, opts.color)}\n`);
    }
    untilMatched(frame);
  }

  /** --until: the first console line that matches (ANSI colours left out) ends the attach. */
  function untilMatched(frame: Frame): void {
    if (opts.until && frame.event === 'console output' && opts.until.re.test(displayLine(frame.args?.[0] ?? '', false))) detach('matched');
  }

  // Every signal that ends the attach goes through `finally`, which puts the terminal back.
  const onSignal: [SignalName, () => void][] = [
    ['SIGINT', () => detach('interrupt')], ['SIGTERM', () => detach('terminate')],
    ['SIGHUP', () => detach('hangup')], ['SIGQUIT', () => detach('quit')],
  ];
  for (const [signal, on] of onSignal) opts.signals.on(signal, on);
  let ended = false;
  void detached.then(() => (ended = true));
  if (opts.until) {
    const { re, timeoutMs } = opts.until;
    // Short sleeps, so nothing keeps the process alive once the attach has ended.
    void (async () => {
      const deadline = clock.now() + timeoutMs;
      while (!ended && clock.now() < deadline) await clock.sleep(Math.min(250, deadline - clock.now()));
      if (ended) return;
      stderr('warn', `no console line matched /${re.source}/ within ${timeoutMs / 1000} s (--timeout)`);
      detach('timeout');
    })();
  }
  try {
    const early = await Promise.race([session.start().then(() => undefined), detached]);
    const how = early ?? (await Promise.race([detached, startInput()]));
    session.close();
    return { eof: Exit.ok, unsent: Exit.error, interrupt: Exit.interrupted, terminate: Exit.terminated, hangup: 129, quit: 131, matched: Exit.ok, timeout: Exit.timedOut }[how];
  } catch (err) {
    session.close();
    throw err;
  } finally {
    for (const [signal, on] of onSignal) opts.signals.off(signal, on);
    prompt?.close();
    piped?.close();
    io.stdin.pause();
    await out.drain();
    door(io.rawStdout).write(resetOnExit(io.stdoutTTY, escapesShown));
  }

  /** `send command`; resolves true once the frame is written to the socket, false if it was not. */
  function sendCommand(text: string): Promise<boolean> {
    return new Promise((resolve) => {
      try {
        const queued = session.send('send command', [text], (err) => {
          if (err) stderr('warn', `may not have been sent (${err.message}): ${text}`);
          resolve(!err);
        });
        if (queued) return;
        stderr('warn', `the console session is reconnecting or renewing; not sent: ${text}`);
      } catch (err) {
        stderr('warn', (err as Error).message);
      }
      resolve(false);
    });
  }

  /**
   * The end of piped input. The contract has no acknowledgement frame, so a command counts as
   * acknowledged once ws.send's callback has fired without error: its frame is written to the
   * socket, ahead of our close frame on the same ordered connection, so the node reads it before
   * it sees us leave. Then the node's immediate answer (an echo, a reply, a `daemon error`) is
   * still shown until the console has been quiet for QUIET_MS (at most LINGER_MS), and we detach:
   * exit 0, or 1 if any command was not sent.
   */
  async function finishPipe(): Promise<void> {
    const results = await Promise.all(written);
    const start = clock.now();
    lastAnswerAt = Math.max(lastAnswerAt, start);
    for (let now = start; now - lastAnswerAt < QUIET_MS && now - start < LINGER_MS; now = clock.now()) {
      await clock.sleep(Math.min(QUIET_MS - (now - lastAnswerAt), LINGER_MS - (now - start)));
    }
    const unsent = results.filter((ok) => !ok).length;
    if (unsent > 0) stderr('warn', `${unsent} of ${results.length} piped commands were not sent`);
    detach(unsent > 0 ? 'unsent' : 'eof');
  }

  /** Wires stdin once attached; resolves only when the session ends (deleted) or fails. */
  async function startInput(): Promise<Detach> {
    const ends = io.stdinTTY ? 'Ctrl-C or Ctrl-D detaches' : opts.readOnly ? 'Ctrl-C detaches' : 'the end of input or Ctrl-C detaches';
    stderr('note', `attached to ${opts.label}${opts.readOnly ? ' (read-only)' : ''}; ${ends}, the server keeps running`);
    const handlers = {
      line: (text: string) => {
        if (text.trim() === '') return;
        if (opts.readOnly) return stderr('warn', 'read-only: nothing is sent');
        const sent = sendCommand(text);
        if (!io.stdinTTY) written.push(sent);
      },
      end: () => {
        if (io.stdinTTY) detach('eof');
        else if (!opts.until) void finishPipe(); // with --until the match (or --timeout) ends it
      },
      interrupt: () => detach('interrupt'),
    };
    if (io.stdinTTY) {
      const promptStream = (io.stdoutTTY ? io.rawStdout : io.rawStderr) as unknown as NodeJS.WritableStream;
      prompt = new TerminalInput(io.stdin, promptStream, handlers, opts.readOnly ? '' : '> ');
    } else if (!opts.readOnly) {
      piped = new PipedInput(io.stdin, handlers);
    }
    const end = await session.done;
    if (end === 'deleted') {
      throw new GshError(`server ${opts.label} was deleted; the console session has ended`, Exit.notFound);
    }
    return 'eof';
  }
}
