import type { WebSocket, RawData } from 'ws';
import { ApiFailure } from '../envelope.js';
import type { PowerSignal } from '../state.js';
import type { SimulatedGame } from './game.js';
import type { TokenClaims, TokenSigner } from './tokens.js';

// One client socket on the console node (01-general-contract.md "Console socket"): the first
// message must be `auth`; each event is checked against the permissions embedded in the token;
// `token expiring` about a minute before expiry (a third of the lifetime for short test tokens),
// `token expired` at expiry, after which privileged events are ignored and output stops until a
// fresh `auth`. Authentication failures answer `jwt error` and never close the socket. A reader
// too slow to keep up loses output, replaced by one `N console lines skipped (slow connection)`.

/** Output is skipped while this much is queued for the client, and resumes below LOW. */
export const SLOW_HIGH_WATER = 4 * 1024 * 1024;
export const SLOW_LOW_WATER = 1024 * 1024;
export const LOGS_REPLAY = 500;
export const HISTORY_DEFAULT = 200;
export const HISTORY_MAX = 1000;

const SIGNAL_PERMISSION: Record<PowerSignal, string> = {
  start: 'control.start', stop: 'control.stop', restart: 'control.restart', kill: 'control.stop',
};

export interface NodeServices {
  signer: TokenSigner;
  game: SimulatedGame;
  state(): string;
  stats(): Record<string, unknown>;
  /** Drives the sandbox's power state machine; throws ApiFailure when refused. */
  power(signal: PowerSignal): void;
  /** Hostile mode (hostile.ts): the arguments of an event as they are sent. */
  shape?: (event: string, args: readonly string[]) => string[];
}

export class ConsoleConnection {
  private claims: TokenClaims | undefined;
  private expired = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private skipped = 0;
  private drainPoll: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    readonly serverId: string,
    private readonly svc: NodeServices,
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => this.dispose());
    ws.on('error', () => this.dispose());
  }

  /** A console line for this client, if its token lets it read the console. */
  line(line: string): void {
    if (!this.may('control.console')) return;
    const buffered = this.ws.bufferedAmount;
    if (this.skipped > 0) {
      if (buffered > SLOW_LOW_WATER) {
        this.skipped++;
        return;
      }
      this.flushSkipped();
    } else if (buffered > SLOW_HIGH_WATER) {
      this.skipped = 1;
      this.drainPoll = setInterval(() => {
        if (this.ws.bufferedAmount <= SLOW_LOW_WATER) this.flushSkipped();
      }, 20);
      return;
    }
    this.send('console output', line);
  }

  /** Server events (status, stats) for an authenticated client with a live token. */
  event(name: string, ...args: string[]): void {
    if (this.claims && !this.expired) this.send(name, ...args);
  }

  /** `deleted`, then disconnect. */
  deleted(): void {
    this.send('deleted');
    this.ws.close(1000, 'server deleted');
  }

  /** Test hook: the token runs out now. */
  expireNow(): void {
    if (this.claims) this.expire();
  }

  terminate(): void {
    this.ws.terminate();
  }

  /** Holds frames back so a burst leaves in one write (ws itself corks per frame only). */
  cork(): void {
    this.rawSocket()?.cork();
  }

  uncork(): void {
    this.rawSocket()?.uncork();
  }

  private rawSocket(): { cork(): void; uncork(): void } | undefined {
    return (this.ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
  }

  private flushSkipped(): void {
    const n = this.skipped;
    this.skipped = 0;
    if (this.drainPoll) clearInterval(this.drainPoll);
    this.drainPoll = undefined;
    this.send('console output', `${n} console lines skipped (slow connection)`);
  }

  private may(permission: string): boolean {
    return this.claims !== undefined && !this.expired && this.claims.permissions.includes(permission);
  }

  private send(event: string, ...args: string[]): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (this.svc.shape) args = this.svc.shape(event, args);
    this.ws.send(JSON.stringify(args.length ? { event, args } : { event }));
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (isBinary) return; // binary frames are ignored
    let frame: { event?: unknown; args?: unknown };
    try {
      frame = JSON.parse(data.toString()) as typeof frame;
    } catch {
      return this.send('daemon error', 'malformed frame: expected a JSON object with event and args');
    }
    const args = Array.isArray(frame?.args) ? frame.args.map(String) : [];
    if (typeof frame?.event !== 'string') return this.send('daemon error', 'malformed frame: event must be a string');
    if (frame.event === 'auth') return this.auth(args[0]);
    if (!this.claims) return this.send('jwt error', 'not authenticated: the first message must be auth');
    if (frame.event === 'send stats') return this.send('stats', JSON.stringify(this.svc.stats()));
    if (this.expired) return this.send('jwt error', 'token expired');
    switch (frame.event) {
      case 'send logs':
        if (!this.allowed('control.console')) return;
        for (const line of this.svc.game.buffer.tail(LOGS_REPLAY)) this.line(line);
        return;
      case 'send history':
        if (this.allowed('control.console')) this.history(args);
        return;
      case 'send command':
        if (!this.allowed('control.command')) return;
        if (this.svc.state() !== 'running') return this.send('daemon error', 'the server is not running; command not sent');
        if (!args[0] || /[\r\n]/.test(args[0])) return this.send('daemon error', 'send command takes one single-line command');
        this.svc.game.command(args[0]);
        return;
      case 'set state':
        return this.setState(args[0]);
      default:
        return this.send('daemon error', `unknown event ${JSON.stringify(frame.event)}`);
    }
  }

  private allowed(permission: string): boolean {
    if (this.may(permission)) return true;
    this.send('daemon error', `permission denied: ${permission}`);
    return false;
  }

  private auth(token: string | undefined): void {
    const v = this.svc.signer.verify(token, this.serverId);
    if (!v.ok) return this.send('jwt error', v.reason);
    this.claims = v.claims;
    this.expired = false;
    this.clearTimers();
    const now = Date.now();
    const lead = Math.min(60_000, Math.floor((v.claims.exp - v.claims.iat) / 3));
    this.after(v.claims.exp - lead - now, () => this.send('token expiring'));
    this.after(v.claims.exp - now, () => this.expire());
    this.send('auth success');
    this.send('status', this.svc.state());
  }

  private expire(): void {
    this.clearTimers();
    this.expired = true;
    this.send('token expired');
  }

  private history(args: string[]): void {
    const [cursorText = '', limitText = ''] = args;
    const limit = limitText === '' ? HISTORY_DEFAULT : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > HISTORY_MAX) {
      return this.send('daemon error', `history page length must be 1 to ${HISTORY_MAX}`);
    }
    const cursor = cursorText === '' ? undefined : Number(cursorText);
    if (cursor !== undefined && (!Number.isInteger(cursor) || cursor < 1)) return this.send('daemon error', 'invalid history cursor');
    this.send('history output', JSON.stringify(this.svc.game.buffer.history(cursor, limit)));
  }

  private setState(signal: string | undefined): void {
    if (signal !== 'start' && signal !== 'stop' && signal !== 'restart' && signal !== 'kill') {
      return this.send('daemon error', 'set state takes one of start, stop, restart, kill');
    }
    if (!this.allowed(SIGNAL_PERMISSION[signal])) return;
    try {
      this.svc.power(signal);
    } catch (err) {
      this.send('daemon error', err instanceof ApiFailure ? err.message : 'power action failed');
    }
  }

  private after(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, Math.max(0, ms));
    this.timers.add(t);
  }

  private clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private dispose(): void {
    this.clearTimers();
    if (this.drainPoll) clearInterval(this.drainPoll);
    this.drainPoll = undefined;
  }
}
