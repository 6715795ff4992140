import { Exit, GshError } from '../core/errors.js';
import type { Runtime } from '../core/run/runtime.js';
import { errorAnswer, isRequest, parseMessage, RPC, type RpcMessage } from './messages.js';
import { type CheckedFlags, type Opened, openBridge } from './start.js';

// `gsh mcp proxy`: one process per client session (README "AI clients (MCP)"). The client's
// messages come one a line on standard input (MCP "Transports": stdio) and each answer goes out
// one a line on standard output; stderr carries gsh's notes, which clients keep in their logs.
// Messages are handled concurrently (a long tool call does not hold up a list). When the start
// itself fails for want of a credential (not logged in, a profile of another service), the bridge
// still answers: every request gets that failure and the `gsh auth login` line, so the client
// shows the person why instead of "server disconnected". A bad flag stops start-up (exit 2).
// Standard input's end, SIGINT or SIGTERM end the session (DELETE) and the process.

export async function runProxy(rt: Runtime, checked: CheckedFlags): Promise<number> {
  const write = (m: RpcMessage) => rt.io.stdout.write(`${JSON.stringify(m)}\n`);
  let opened: Opened | undefined;
  let refusal: string | undefined;
  try {
    await rt.client();
  } catch (err) {
    if (!(err instanceof GshError)) throw err;
    refusal = `gsh has no credential for the service: ${err.message}${err.hint ? `. ${err.hint}` : ''}`;
    rt.warn(refusal);
  }
  // --servers is resolved here: a selection that names nothing stops start-up.
  if (!refusal) opened = await openBridge(rt, checked, write);
  const pending = new Set<Promise<void>>();
  const stdin = rt.io.stdin;
  let stop: (code: number) => void = () => {};
  const stopped = new Promise<number>((resolve) => (stop = resolve));
  const onSignal = (code: number) => () => stop(code);
  const onInt = onSignal(Exit.interrupted);
  const onTerm = onSignal(Exit.terminated);
  rt.ctx.signals.on('SIGINT', onInt);
  rt.ctx.signals.on('SIGTERM', onTerm);
  const handle = (line: string) => {
    if (line.trim() === '') return;
    const m = parseMessage(line);
    if (!m) return write(errorAnswer(null, RPC.parse, 'gsh: not a JSON-RPC 2.0 message (one JSON object a line)'));
    if (!opened) {
      if (isRequest(m)) write(errorAnswer(m.id, RPC.server, refusal!));
      return;
    }
    const work = opened.bridge.fromClient(m).catch((err: unknown) => {
      if (isRequest(m)) write(errorAnswer(m.id, RPC.internal, opened!.bridge.words(err)));
    });
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };
  const reading = (async () => {
    let buffered = '';
    stdin.setEncoding?.('utf8');
    for await (const chunk of stdin) {
      buffered += String(chunk);
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        handle(buffered.slice(0, nl).replace(/\r$/, ''));
        buffered = buffered.slice(nl + 1);
      }
    }
    handle(buffered);
    // Input ended: what is under way still gets its answer, then the session ends.
    await Promise.allSettled([...pending]);
    return Exit.ok;
  })();
  try {
    const code = await Promise.race([reading, stopped]);
    return code;
  } finally {
    rt.ctx.signals.off('SIGINT', onInt);
    rt.ctx.signals.off('SIGTERM', onTerm);
    await opened?.link.close();
    stdin.destroy?.();
  }
}
