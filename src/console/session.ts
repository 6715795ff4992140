import { WebSocket } from 'ws';
import { ApiError, Exit, GshError, InterruptedError, ownError } from '../core/errors.js';
import {
  decodeFrame, encodeFrame, isExpiryReason, MAX_OUTBOUND_FRAME, parseHistory, SKIPPED_LINE,
  type ConsoleSessionInfo, type Frame,
} from './protocol.js';
import { fillGap, RecentLines } from './resync.js';
import { fromService } from '../core/terminal/terminal-text.js';

// A console socket session that lasts (issue 5, item 2; 01-general-contract.md "Console
// socket"). It authenticates, renews the token on the same connection on `token expiring`,
// `token expired` or an expiry `jwt error`, reconnects with backoff when the connection drops
// (giving up with exit 9 after a bounded number of failures), and after an expiry or a reconnect
// fills the gap from `send history` so no line is lost or repeated. `deleted` ends it.

export interface ReconnectPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RECONNECT: ReconnectPolicy = { attempts: 6, baseMs: 250, maxMs: 8000 };
/** Page length asked for when filling a gap (the contract's maximum). */
export const GAP_PAGE = 1000;
const HISTORY_REPLY_TIMEOUT_MS = 5000;

export interface SessionOptions {
  /** `POST /servers/{id}/console/token` through the request core. */
  fetchSession: () => Promise<ConsoleSessionInfo>;
  /** Replay recent output with `send logs` after the first authentication. */
  replay: boolean;
  /** Every frame for the caller, console output deduplicated, gap lines as `console output`. */
  onFrame: (frame: Frame) => void;
  note: (message: string) => void;
  warn: (message: string) => void;
  reconnect?: ReconnectPolicy;
  /** A ping this often; no pong by the next one means a dead connection. */
  pingMs?: number;
}

export type SessionEnd = 'detached' | 'deleted';

export class ConsoleSession {
  /** Resolves at the first `auth success`; rejects if the session cannot start. */
  readonly ready: Promise<void>;
  /** Settles when the session ends: detached by the caller, or the server was deleted. */
  readonly done: Promise<SessionEnd>;
  private resolveReady!: () => void;
  private rejectReady!: (err: unknown) => void;
  private resolveDone!: (end: SessionEnd) => void;
  private rejectDone!: (err: unknown) => void;

  private ws: WebSocket | undefined;
  private authed = false;
  private everAuthed = false;
  private renewing = false;
  private needGapFill = false;
  private gapLive: string[] | undefined;
  private gapTimer: NodeJS.Timeout | undefined;
  private readonly recent = new RecentLines();
  private failures = 0;
  private ended = false;
  private paused = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private awaitingPong = false;
  private readonly policy: ReconnectPolicy;

  constructor(private readonly opts: SessionOptions) {
    this.policy = opts.reconnect ?? DEFAULT_RECONNECT;
    this.ready = new Promise((res, rej) => {
      this.resolveReady = res;
      this.rejectReady = rej;
    });
    this.done = new Promise((res, rej) => {
      this.resolveDone = res;
      this.rejectDone = rej;
    });
    // Callers may await only one of them.
    this.ready.catch(() => {});
    this.done.catch(() => {});
  }

  start(): Promise<void> {
    void this.connect(false);
    return this.ready;
  }

  /**
   * Sends a client event when authenticated; false when it could not be sent now. `written` is
   * called once the frame has been written to the socket, or with the error that stopped it.
   */
  send(event: string, args: readonly string[] = [], written?: (err?: Error) => void): boolean {
    const ws = this.ws;
    if (!this.authed || !ws || ws.readyState !== WebSocket.OPEN) return false;
    const text = encodeFrame(event, args);
    if (Buffer.byteLength(text) > MAX_OUTBOUND_FRAME) throw new GshError('that is larger than the 64 KiB the console socket accepts', Exit.usage);
    ws.send(text, written);
    return true;
  }

  /** Backpressure: stop reading the socket while the caller's output is full. */
  pause(): void {
    this.paused = true;
    this.ws?.pause();
  }

  resume(): void {
    this.paused = false;
    this.ws?.resume();
  }

  /** Detaches: closes the socket; the server keeps running. */
  close(): void {
    if (this.ended) return;
    this.end();
    this.resolveDone('detached');
  }

  private async connect(resync: boolean): Promise<void> {
    let info: ConsoleSessionInfo;
    try {
      info = await this.opts.fetchSession();
    } catch (err) {
      if (err instanceof ApiError && err.exitCode !== Exit.unavailable && err.exitCode !== Exit.rateLimited) return this.fatal(err);
      // Ctrl-C or SIGTERM cancelled the request: the run is ending, not the connection.
      if (err instanceof InterruptedError) return this.fatal(ownError(err));
      return this.lost(`could not get a console session: ${(err as Error).message}`);
    }
    if (this.ended) return;
    const ws = new WebSocket(info.socket, { perMessageDeflate: false, handshakeTimeout: 10_000 });
    this.ws = ws;
    this.authed = false;
    if (this.paused) ws.pause();
    let reason = 'connection closed';
    ws.on('open', () => {
      ws.send(encodeFrame('auth', [info.token]));
      // Sent with auth so that no live line can arrive before the replay (and be repeated by it).
      if (!resync && this.opts.replay) ws.send(encodeFrame('send logs'));
      this.needGapFill ||= resync;
      this.startPing(ws);
    });
    ws.on('message', (data, isBinary) => {
      if (this.ws !== ws || isBinary || this.ended) return; // nothing after a detach
      const frame = decodeFrame(data.toString());
      if (frame) this.onFrame(frame);
    });
    ws.on('pong', () => {
      this.awaitingPong = false;
    });
    ws.on('error', (err) => {
      reason = err.message;
    });
    ws.on('close', (code) => {
      if (this.ws !== ws || this.ended) return;
      this.stopTimers();
      this.authed = false;
      this.renewing = false;
      this.lost(code === 1006 || code === 1005 ? reason : `${reason} (code ${code})`);
    });
  }

  private onFrame(frame: Frame): void {
    const arg = frame.args?.[0];
    switch (frame.event) {
      case 'auth success':
        this.authed = true;
        this.renewing = false;
        if (this.failures > 0) this.opts.note('reconnected to the console');
        this.failures = 0;
        if (!this.everAuthed) {
          this.everAuthed = true;
          this.resolveReady();
        }
        if (this.needGapFill) this.beginGapFill();
        break;
      case 'console output':
        if (arg === undefined) return;
        if (SKIPPED_LINE.test(arg)) break;
        if (this.gapLive) this.gapLive.push(arg);
        else this.emitLine(arg);
        return;
      case 'history output':
        if (this.gapLive) return this.endGapFill(parseHistory(arg)?.data);
        break;
      case 'token expiring':
        this.renew();
        break;
      case 'token expired':
        // The node honours no command until a fresh auth: send() refuses rather than lose one.
        this.authed = false;
        this.needGapFill = true;
        this.renew();
        break;
      case 'jwt error':
        this.renewing = false;
        if (isExpiryReason(arg)) {
          this.needGapFill = true;
          this.renew();
        } else if (!this.everAuthed) {
          return this.fatal(new GshError(`the console node refused the session: ${arg ?? 'no reason given'}`, Exit.auth));
        }
        break;
      case 'deleted':
        this.opts.onFrame(frame);
        this.end();
        this.resolveDone('deleted');
        return;
    }
    this.opts.onFrame(frame);
  }

  private emitLine(line: string): void {
    this.recent.push(line);
    this.opts.onFrame({ event: 'console output', args: [fromService(line)] });
  }

  /** A new session token, sent as a fresh `auth` on the same connection. */
  private renew(): void {
    if (this.renewing || this.ended) return;
    this.renewing = true;
    const ws = this.ws;
    this.opts.fetchSession().then(
      (info) => {
        if (this.ended || this.ws !== ws || ws?.readyState !== WebSocket.OPEN) return;
        ws.send(encodeFrame('auth', [info.token]));
      },
      (err: unknown) => {
        this.renewing = false;
        if (err instanceof ApiError && err.exitCode !== Exit.unavailable && err.exitCode !== Exit.rateLimited) return this.fatal(err);
        this.opts.warn(`could not renew the console session: ${(err as Error).message}`);
        ws?.terminate();
      },
    );
  }

  private beginGapFill(): void {
    this.needGapFill = false;
    if (this.gapLive) return;
    this.gapLive = [];
    this.send('send history', ['', String(GAP_PAGE)]);
    this.gapTimer = setTimeout(() => {
      this.opts.warn('the console node did not answer send history; lines from the gap may be missing');
      this.endGapFill(undefined);
    }, HISTORY_REPLY_TIMEOUT_MS);
  }

  private endGapFill(history: string[] | undefined): void {
    const live = this.gapLive ?? [];
    this.gapLive = undefined;
    clearTimeout(this.gapTimer);
    const fill = fillGap(this.recent.lines(), history ?? [], live);
    if (history && !fill.matched) this.opts.warn('could not line up the console history with the last lines shown; some lines may be missing');
    for (const line of fill.lines) this.emitLine(line);
  }

  private lost(reason: string): void {
    if (this.ended) return;
    this.failures++;
    const { attempts, baseMs, maxMs } = this.policy;
    if (this.failures > attempts) {
      return this.fatal(new GshError(
        `lost the console connection (${reason}); gave up after ${attempts} attempts`,
        Exit.unavailable,
        'Run it again (a supervisor can restart it); `gsh console status` shows whether the node is reachable.',
      ));
    }
    const delay = Math.min(maxMs, baseMs * 2 ** (this.failures - 1));
    this.opts.warn(`console connection lost (${reason}); reconnecting in ${(delay / 1000).toFixed(1)}s (attempt ${this.failures}/${attempts})`);
    this.retryTimer = setTimeout(() => void this.connect(this.everAuthed), delay);
  }

  private startPing(ws: WebSocket): void {
    const every = this.opts.pingMs ?? 20_000;
    this.awaitingPong = false;
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (this.awaitingPong) return ws.terminate();
      this.awaitingPong = true;
      ws.ping();
    }, every);
  }

  private stopTimers(): void {
    clearInterval(this.pingTimer);
    clearTimeout(this.retryTimer);
    clearTimeout(this.gapTimer);
  }

  private end(): void {
    this.ended = true;
    this.stopTimers();
    const ws = this.ws;
    if (ws && ws.readyState === WebSocket.OPEN) {
      ws.close(1000);
      setTimeout(() => ws.terminate(), 500).unref();
    } else ws?.terminate();
  }

  private fatal(err: unknown): void {
    if (this.ended) return;
    this.end();
    this.rejectReady(err);
    this.rejectDone(err);
  }
}
