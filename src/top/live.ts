import type { SignalName } from '../core/run/context.js';
import { Exit } from '../core/errors.js';
import type { ApiClient } from '../core/wire/http.js';
import type { Runtime } from '../core/run/runtime.js';
import { type Opened, openDetail } from './detail.js';
import { frame } from './frame.js';
import { type Action, onKey, parseKeys } from './keys.js';
import { refresh } from './read.js';
import { Screen } from './screen.js';
import { initialState, type SortKey } from './state.js';

// `gsh top` on a terminal: refresh on the budget's interval (budget.ts), draw a frame after every
// change (a refresh, a key, a resize, a stats frame of the opened server), and end on q (0),
// Ctrl-C (130), SIGTERM (143), SIGHUP (129), SIGQUIT (131) or an error, which is thrown after the terminal is given back.
// Every way out passes the one `finally` below, which closes the opened socket and gives the
// terminal back (screen.ts).

export interface LiveOptions {
  client: ApiClient;
  /** The servers -s named (all when absent). */
  only?: ReadonlySet<string>;
  /** --interval, when given. */
  askedMs?: number;
  /** --sort: the order the view starts in. */
  sort?: SortKey;
}

export async function runLive(rt: Runtime, o: LiveOptions): Promise<number> {
  const state = initialState(rt.io.color, o.sort);
  let opened: Opened | undefined;
  let stopped: number | undefined;
  let finish!: (code: number) => void;
  let fail!: (err: unknown) => void;
  const ended = new Promise<number>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const render = () => screen.draw(frame(state, screen.width, screen.height));
  /** Ends the view: whatever is under way (a page, the pause) is cancelled. */
  const stop = (code: number) => {
    if (stopped !== undefined) return;
    stopped = code;
    rt.cancelAll(code === Exit.interrupted ? 'SIGINT' : 'SIGTERM');
    finish(code);
  };
  const act = (action: Action) => {
    if (action === 'quit') stop(0);
    else if (action === 'interrupt') stop(Exit.interrupted);
    else if (action === 'open') {
      const s = state.servers.find((x) => x.id === state.selected);
      if (!s) return;
      opened = openDetail(o.client, s.id, s.name, () => rt.now(), () => {
        if (state.detail === opened?.view) render();
      });
      state.detail = opened.view;
    } else if (action === 'act') {
      const pending = state.confirm;
      delete state.confirm;
      if (pending) void import('./actions.js').then(({ runAction }) => runAction(rt, o.client, state, pending, () => stopped === undefined && render())).catch(fail);
    } else if (action === 'close') {
      opened?.close();
      opened = undefined;
      delete state.detail;
    }
  };
  const screen = new Screen(rt.io.rawStdout, rt.io.stdin, {
    keys: (chunk) => {
      try {
        for (const key of parseKeys(chunk)) if (stopped === undefined) act(onKey(state, key, screen.height));
        if (stopped === undefined) render();
      } catch (err) {
        fail(err);
      }
    },
    resize: () => render(),
  });
  // What the client says while the screen is taken (a wait for the rate-limit window) goes to the
  // header: written to stderr it would land on the screen, under the frame.
  const { note, warn } = rt;
  rt.note = rt.warn = (line: string) => {
    state.note = line;
    render();
  };
  // Raw input turns Ctrl-C into a key; a signal sent to the process comes here (exit codes as
  // console attach: 130, 143, 129, 131).
  const onSignal: [SignalName, () => void][] = [
    ['SIGINT', () => stop(Exit.interrupted)], ['SIGTERM', () => stop(Exit.terminated)],
    ['SIGHUP', () => stop(129)], ['SIGQUIT', () => stop(131)],
  ];
  for (const [signal, on] of onSignal) rt.ctx.signals.on(signal, on);
  const loop = (async () => {
    for (;;) {
      await refresh(state, o.client, () => rt.now(), o.only, o.askedMs);
      render();
      await rt.sleep(state.intervalMs!);
    }
  })();
  // After stop() the loop fails with the cancellation: that is the way out, not an error.
  const settled = loop.catch((err: unknown) => {
    if (stopped === undefined) fail(err);
  });
  try {
    screen.take();
    render();
    return await ended;
  } finally {
    rt.note = note;
    rt.warn = warn;
    for (const [signal, on] of onSignal) rt.ctx.signals.off(signal, on);
    if (stopped === undefined) stop(Exit.error);
    opened?.close();
    screen.give();
    await settled;
  }
}
