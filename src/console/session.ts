import { WebSocket } from 'ws';
import { ApiError, Exit, GshError, InterruptedError, ownError } from '../core/errors.js';
import {
  decodeFrame, encodeFrame, isExpiryReason, MAX_OUTBOUND_FRAME, parseHistory, SKIPPED_LINE,
  type ConsoleSessionInfo, type Frame, type HistoryPage,
} from './protocol.js';
import { fillGap, RecentLines, tailFound } from './resync.js';
import { fromService } from '../core/terminal/terminal-text.js';

// A console socket session that lasts (issue 5, item 2; 01-general-contract.md "Console
// socket"). It authenticates, renews the token on the same connection on `token expiring`,
// `token expired` or an expiry `jwt error`, reconnects with backoff when the connection drops
// (giving up with exit 9 after a bounded number of failures), and after an expiry or a reconnect
// fills the gap from `send history` so no line is lost or repeated. `deleted` ends it.
//
// A pause gsh made is never taken for a dead connection (issue 55): while the caller's output is
// full the socket is not read (backpressure, pause()), so a pong, like every frame, waits behind
// the node's queued output. The liveness check counts only a ping interval in which nothing at
// all came and the socket was never paused; the history reply's wait counts only unpaused time.

export interface ReconnectPolicy {
  attempts: number;
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RECONNECT: ReconnectPolicy = { attempts: 6, baseMs: 250, maxMs: 8000 };
/** Page length asked for when filling a gap (the contract's maximum). */
export const GAP_PAGE = 1000;
/** How far back a gap is paged through history: the lines a console node keeps. */
export const GAP_LIMIT = 10_000;
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
  /** The history pages of the gap being filled, oldest first. */
  private gapHistory: string[] = [];
  /** How many gap lines came before the newest history page: lines the history holds. */
  private gapLiveBefore: number | undefined;
  private gapTimer: NodeJS.Timeout | undefined;
  private readonly recent = new RecentLines();
  private failures = 0;
  private ended = false;
  private paused = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private awaitingPong = false;
  /** Something came on the socket since the last ping: it is alive whatever became of the pong. */
  private heardSincePing = false;
  /** The socket was paused since the last ping (or the history request): its silence is ours. */
  private pausedSincePing = false;
  private pausedSinceAsk = false;
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
    this.pausedSincePing = true;
    this.pausedSinceAsk = true;
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
      this.heardSincePing = true;
      const frame = decodeFrame(data.toString());
      if (frame) this.onFrame(frame);
    });
    ws.on('pong', () => {
      this.awaitingPong = false;
      this.heardSincePing = true;
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
        if (this.gapLive) return this.onGapPage(parseHistory(arg));
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

  /**
   * After a gap (a renewal or a reconnect), history is paged back from the newest line until the
   * last lines shown are found, GAP_LIMIT lines at most; live lines meanwhile wait in `gapLive`.
   */
  private beginGapFill(): void {
    this.needGapFill = false;
    if (this.gapLive) return;
    this.gapLive = [];
    this.gapHistory = [];
    this.gapLiveBefore = undefined;
    this.askHistory('');
  }

  private askHistory(cursor: string): void {
    if (!this.send('send history', [cursor, String(GAP_PAGE)])) return this.endGapFill(undefined);
    this.pausedSinceAsk = this.paused;
    this.armGapTimer();
  }

  /** The wait for a history page counts only time the socket was read. */
  private armGapTimer(): void {
    clearTimeout(this.gapTimer);
    this.gapTimer = setTimeout(() => {
      if (this.paused || this.pausedSinceAsk) {
        this.pausedSinceAsk = this.paused;
        return this.armGapTimer();
      }
      this.opts.warn('the console node did not answer send history; lines from the gap may be missing');
      this.endGapFill(undefined);
    }, HISTORY_REPLY_TIMEOUT_MS);
  }

  private onGapPage(page: HistoryPage | undefined): void {
    clearTimeout(this.gapTimer);
    this.gapLiveBefore ??= this.gapLive?.length;
    if (!page) return this.endGapFill(this.gapHistory.length ? this.gapHistory : undefined);
    this.gapHistory = [...page.data, ...this.gapHistory];
    const more = page.has_more && page.cursor !== undefined && page.data.length > 0 && this.gapHistory.length < GAP_LIMIT;
    if (more && !tailFound(this.recent.lines(), this.gapHistory)) return this.askHistory(page.cursor!);
    this.endGapFill(this.gapHistory, !page.has_more);
  }

  /** `whole`: the node has no older line than these (its history began after the last line shown). */
  private endGapFill(history: string[] | undefined, whole = false): void {
    const live = this.gapLive ?? [];
    this.gapLive = undefined;
    this.gapHistory = [];
    clearTimeout(this.gapTimer);
    const fill = fillGap(this.recent.lines(), history ?? [], live, history ? this.gapLiveBefore : undefined);
    this.gapLiveBefore = undefined;
    if (history && !fill.matched) {
      this.opts.warn(whole
        ? `the last console line shown is not in the node's history (${history.length} lines; it was cleared): lines between them are missing, how many the node does not say`
        : `the gap is longer than the ${history.length} lines of history paged back through: the lines before them are missing, how many the node does not say`);
    }
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
      // No ping while gsh holds the socket: its answer could not be read.
      if (this.paused) return;
      if (this.awaitingPong && !this.heardSincePing && !this.pausedSincePing) return ws.terminate();
      this.awaitingPong = true;
      this.heardSincePing = false;
      this.pausedSincePing = false;
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
