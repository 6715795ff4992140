import type { ApiClient } from '../core/wire/http.js';
import { parseStats } from '../console/stats-view.js';
import type { Frame } from '../console/protocol.js';
import { ConsoleSession } from '../console/session.js';
import { consoleTarget, sessionSource } from '../console/target.js';
import { usageOf } from './sample.js';
import { addLine, applyStats, type DetailView } from './state.js';

// An opened server in `gsh top`: its console socket (01-general-contract.md "Console socket"),
// through the console client every console command uses (src/console/: the session renews its
// token and reconnects by itself). `send logs` replays its recent lines, `send stats` asks for
// stats at once, then the node pushes them every second. Leaving the server closes the socket.
// Session notes go into the view, not to stderr, which the screen covers.

export interface Opened {
  readonly view: DetailView;
  close(): void;
}

/** Opens the socket at once (the view fills in as frames come); close() may come before it is open. */
export function openDetail(client: ApiClient, id: string, name: string, now: () => number, changed: () => void): Opened {
  const view: DetailView = { id, name, connected: false, cpuHistory: [], memHistory: [], lines: [] };
  const say = (m: string) => {
    view.message = m;
    changed();
  };
  let session: ConsoleSession | undefined;
  let closed = false;
  const onFrame = (f: Frame) => {
    const arg = f.args?.[0];
    if (f.event === 'auth success') {
      view.connected = true;
      session?.send('send stats');
    } else if (f.event === 'console output' && arg !== undefined) addLine(view, arg);
    else if (f.event === 'stats') {
      const stats = parseStats(arg);
      if (!stats) return;
      applyStats(view, { ...usageOf(stats), ...(typeof stats.state === 'string' ? { state: stats.state } : {}) }, now());
    } else if (f.event === 'status' && arg !== undefined) {
      // The state as the node said it (shown inert by frame.ts, like every service text); before the first stats too.
      if (view.stats) view.stats.state = arg;
      else view.stats = { state: arg, at: now() };
    }
    else if (f.event === 'deleted') say('the server was deleted');
    else return;
    changed();
  };
  const start = async () => {
    const target = await consoleTarget(client, id, name);
    if (closed) return;
    session = new ConsoleSession({ fetchSession: sessionSource(target), replay: true, note: say, warn: say, onFrame });
    session.done.then(() => undefined, (err: unknown) => {
      view.connected = false;
      say(`console: ${(err as Error).message}`);
    });
    await session.start();
  };
  start().catch((err: unknown) => {
    if (!closed) say(`console: ${(err as Error).message}`);
  });
  return {
    view,
    close: () => {
      closed = true;
      session?.close();
    },
  };
}
