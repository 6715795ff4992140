import { ConsoleSession } from '../console/session.js';
import { consoleTarget, sessionSource } from '../console/target.js';
import type { Frame } from '../console/protocol.js';
import type { SocketStates } from '../core/fleet/wait.js';
import type { ApiClient } from '../core/wire/http.js';
import { OutcomeTracker, trackOutcomes } from '../core/outcome.js';

// One server's `--wait` on its state (power start, restart, stop, kill) hears the console socket's
// `status` events (01-general-contract.md "Console socket": `status`, one of offline, starting,
// running, stopping), so the wait reads the status as soon as the node says the state changed
// instead of at its next poll (issue 50: a 5 s restart was reported after 8.5 s). The socket only
// wakes the wait: the status resource's answer ends it (core/fleet/wait.ts waitForServerState),
// and the polls go on as before, so a key that may not open the console (no `servers:console`
// scope or `control.console` permission: 403), a node in storage mode (409) or a socket that
// drops leaves a plain polled wait, with nothing said (`--debug` traces the token request).

/** The socket's states as the wait reads them, and the session's end. */
export interface StateWatch extends SocketStates {
  close(): void;
}

/**
 * Opens the console of `serverId` for its `status` events. Never fails and never delays the wait:
 * the session starts in the background, and one that cannot start (or later drops) just sends no
 * more states. No reconnects: the polls carry the wait meanwhile.
 */
export async function watchStates(client: ApiClient, serverId: string): Promise<StateWatch> {
  const seen: string[] = [];
  let changed = new AbortController();
  const onFrame = (f: Frame) => {
    const state = f.args?.[0];
    if (f.event !== 'status' || state === undefined) return;
    seen.push(String(state));
    const told = changed;
    changed = new AbortController();
    told.abort();
  };
  // The session's own words (a refusal, a lost connection) are not the wait's: --debug traces its requests.
  const quiet = () => {};
  const source = sessionSource(await consoleTarget(client, serverId, serverId));
  const session = new ConsoleSession({
    // The session's POST is not the change the command made: kept out of the run's outcome, which
    // its last mutation decides (core/outcome.ts), so a stopped wait still names the power request.
    fetchSession: () => trackOutcomes(new OutcomeTracker(), source),
    replay: false,
    onFrame,
    note: quiet,
    warn: quiet,
    reconnect: { attempts: 0, baseMs: 0, maxMs: 0 },
  });
  void session.start().catch(() => {});
  return {
    seen: () => seen,
    next: () => changed.signal,
    close: () => session.close(),
  };
}
