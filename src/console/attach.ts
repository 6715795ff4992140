import { ansi, type Streams } from '../core/io.js';
import { Exit, GshError } from '../core/errors.js';
import { describeEvent } from './describe-event.js';
import { displayLine } from './display.js';
import type { ConsoleSessionInfo, Frame } from './protocol.js';
import { ConsoleSession, type ReconnectPolicy } from './session.js';
import { LineSink } from './sink.js';
import { PipedInput, TerminalInput, type PromptLine } from './terminal.js';

// `gsh console attach` (issue 5, item 1): console output on stdout as it arrives, everything else
// on stderr (dimmed on a terminal), typed lines sent as `send command`. Ctrl-C or Ctrl-D detaches
// and leaves the server running. When stdin is a pipe, its end stops sending but not streaming.

export interface AttachOptions {
  io: Streams;
  label: string;
  fetchSession: () => Promise<ConsoleSessionInfo>;
  /** Replay recent output first (`send logs`). */
  history: boolean;
  readOnly: boolean;
  /** One JSON object per socket event on stdout. */
  json: boolean;
  /** ANSI kept in console lines. */
  color: boolean;
  reconnect?: ReconnectPolicy;
}

type Detach = 'eof' | 'interrupt' | 'terminate';

export async function attach(opts: AttachOptions): Promise<number> {
  const { io } = opts;
  let prompt: (PromptLine & { close(): void }) | undefined;
  let piped: PipedInput | undefined;
  let detach!: (how: Detach) => void;
  const detached = new Promise<Detach>((resolve) => (detach = resolve));

  const session: ConsoleSession = new ConsoleSession({
    fetchSession: opts.fetchSession,
    replay: opts.history,
    onFrame: (frame) => show(frame),
    note: (text) => stderr('note', text),
    warn: (text) => stderr('warn', text),
    ...(opts.reconnect ? { reconnect: opts.reconnect } : {}),
  });
  const out = new LineSink(io.stdout, {
    beforeWrite: () => io.stdoutTTY && prompt?.hide(),
    afterWrite: () => io.stdoutTTY && prompt?.show(),
    full: () => session.pause(),
    drained: () => session.resume(),
  });

  function stderr(kind: 'note' | 'warn', text: string): void {
    out.flush(); // keep stdout and stderr in the order things happened
    if (io.stderrTTY) prompt?.hide();
    io.stderr.write(kind === 'note' ? `${ansi.dim(text, io.colorErr)}\n` : `${ansi.yellow('warning:', io.colorErr)} ${text}\n`);
    if (io.stderrTTY) prompt?.show();
  }

  function show(frame: Frame): void {
    if (opts.json) return out.push(`${JSON.stringify(frame)}\n`);
    const shown = describeEvent(frame);
    if (shown) return stderr(shown.kind, shown.text);
    if (frame.event === 'console output') out.push(`${displayLine(frame.args?.[0] ?? '', opts.color)}\n`);
  }

  const onSigint = () => detach('interrupt');
  const onSigterm = () => detach('terminate');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  try {
    const early = await Promise.race([session.start().then(() => undefined), detached]);
    const how = early ?? (await Promise.race([detached, startInput()]));
    session.close();
    return how === 'interrupt' ? Exit.interrupted : how === 'terminate' ? 143 : Exit.ok;
  } catch (err) {
    session.close();
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    prompt?.close();
    piped?.close();
    io.stdin.pause();
    await out.drain();
  }

  /** Wires stdin once attached; resolves only when the session ends (deleted) or fails. */
  async function startInput(): Promise<Detach> {
    stderr('note', `attached to ${opts.label}${opts.readOnly ? ' (read-only)' : ''}; Ctrl-C or Ctrl-D detaches, the server keeps running`);
    const handlers = {
      line: (text: string) => {
        if (text.trim() === '') return;
        if (opts.readOnly) return stderr('warn', 'read-only: nothing is sent');
        try {
          if (!session.send('send command', text)) stderr('warn', `not connected; not sent: ${text}`);
        } catch (err) {
          stderr('warn', (err as Error).message);
        }
      },
      end: () => {
        if (io.stdinTTY) detach('eof');
      },
      interrupt: () => detach('interrupt'),
    };
    if (io.stdinTTY) {
      const promptStream = (io.stdoutTTY ? io.stdout : io.stderr) as unknown as NodeJS.WritableStream;
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
