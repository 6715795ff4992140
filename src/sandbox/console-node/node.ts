import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { SandboxContext } from '../context.js';
import { hostileConsoleArgs } from '../hostile.js';
import type { UpgradeHandler } from '../types.js';
import type { ServerRecord } from '../state.js';
import { ConsoleConnection } from './connection.js';
import { SimulatedGame } from './game.js';
import { OWNER_PERMISSIONS, TokenSigner } from './tokens.js';

// The console node of the sandbox: serves each server's console socket at the `socket` URL that
// `POST /servers/{id}/console/token` hands out (the API never proxies the stream: 01-general-
// contract.md "What the service does" 5). Inbound text frames are capped at 64 KiB ("Limits");
// a browser Origin other than the sandbox's own gets 403 at upgrade.

export const SOCKET_PATH = /^\/node\/servers\/([^/]+)\/ws$/;
export const MAX_INBOUND_FRAME = 64 * 1024;
/** "about 10 minutes" (Resource table: Console session). */
export const DEFAULT_TOKEN_TTL_MS = 10 * 60_000;
/** Stats are pushed every second while the server is up and every 5 s while offline. */
const STATS_TICK_MS = 1000;
const OFFLINE_STATS_EVERY = 5;

export interface ConsoleNodeOptions {
  tokenTtlMs?: number;
  /** Browser origins allowed besides the sandbox's own. */
  allowedOrigins?: readonly string[];
}

export interface ConsoleSessionBody {
  socket: string;
  token: string;
  permissions: string[];
}

export class ConsoleNode {
  readonly signer = new TokenSigner();
  readonly tokenTtlMs: number;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_INBOUND_FRAME });
  private readonly games = new Map<string, SimulatedGame>();
  private readonly connections = new Map<string, Set<ConsoleConnection>>();
  private readonly statsTimer: NodeJS.Timeout;
  private ticks = 0;
  /**
   * Test hook: the socket's lines and `status` events leave this many simulated ms after the
   * change, in order. A real node's socket and its API are two paths: a status poll may answer a
   * new state before the socket tells it, or after (0, the default: the socket first).
   */
  socketLagMs = 0;

  constructor(
    private readonly ctx: SandboxContext,
    private readonly opts: ConsoleNodeOptions = {},
  ) {
    this.tokenTtlMs = opts.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS;
    const events = ctx.state.events;
    events.on('server-state', (s: ServerRecord) => {
      this.game(s.id)?.onState(s.state);
      const state = s.state;
      this.deliver(s.id, (c) => c.event('status', state));
    });
    events.on('server-deleted', (id: string) => this.serverDeleted(id));
    events.on('server-installed', (s: ServerRecord) => {
      for (const c of this.connections.get(s.id) ?? []) c.event('install completed', 'true');
    });
    this.statsTimer = setInterval(() => this.pushStats(), Math.max(20, STATS_TICK_MS * ctx.clock.timeScale));
    this.statsTimer.unref();
  }

  readonly upgrade: UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://node.invalid').pathname;
    const m = SOCKET_PATH.exec(path);
    if (!m) return false;
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== this.ctx.origin && !this.opts.allowedOrigins?.includes(origin)) {
      return refuse(socket, 403, 'Forbidden');
    }
    const id = decodeURIComponent(m[1] ?? '');
    if (!this.ctx.state.servers.has(id)) return refuse(socket, 404, 'Not Found');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, id));
    return true;
  };

  socketUrl(serverId: string): string {
    return `${this.ctx.origin.replace(/^http/, 'ws')}/node/servers/${encodeURIComponent(serverId)}/ws`;
  }

  /** A console session as the token endpoint returns it. */
  issue(serverId: string, permissions: readonly string[] = OWNER_PERMISSIONS, ttlMs = this.tokenTtlMs): ConsoleSessionBody {
    const { token, claims } = this.signer.issue(serverId, permissions, ttlMs);
    return { socket: this.socketUrl(serverId), token, permissions: claims.permissions };
  }

  /** The simulated game of a server (created on first use, with a boot log if it is running). */
  game(serverId: string): SimulatedGame | undefined {
    const s = this.ctx.state.servers.get(serverId);
    if (!s) return undefined;
    let g = this.games.get(serverId);
    if (!g) {
      const game = new SimulatedGame(s, {
        line: (line) => this.deliver(serverId, (c) => c.line(line)),
        stop: () => {
          if (s.state === 'running') this.ctx.lifecycle.power(s, 'stop');
        },
        crash: () => {
          if (s.state !== 'offline') this.ctx.lifecycle.power(s, 'kill');
        },
        batch: (fn) => {
          const conns = [...(this.connections.get(serverId) ?? [])];
          for (const c of conns) c.cork();
          try {
            fn();
          } finally {
            for (const c of conns) c.uncork();
          }
        },
      });
      g = game;
      this.games.set(serverId, game);
      if (s.state === 'running') {
        game.onState('starting');
        game.onState('running');
      }
    }
    return g;
  }

  /**
   * Sends to the sockets open now, at once or socketLagMs of simulated time later (the sandbox's
   * clock keeps the order); a socket opened meanwhile does not get it, as on a real node.
   */
  private deliver(serverId: string, send: (c: ConsoleConnection) => void): void {
    const open = [...(this.connections.get(serverId) ?? [])];
    if (this.socketLagMs > 0) this.ctx.clock.after(this.socketLagMs, () => open.forEach(send));
    else open.forEach(send);
  }

  /** Test hook: the node drops every socket of a server without a close handshake. */
  drop(serverId: string): void {
    for (const c of this.connections.get(serverId) ?? []) c.terminate();
  }

  /** Test hook: every token on a server's sockets expires now. */
  expireTokens(serverId: string): void {
    for (const c of this.connections.get(serverId) ?? []) c.expireNow();
  }

  connectionCount(serverId: string): number {
    return this.connections.get(serverId)?.size ?? 0;
  }

  close(): void {
    clearInterval(this.statsTimer);
    for (const g of this.games.values()) g.close();
    for (const set of this.connections.values()) for (const c of set) c.terminate();
    this.wss.close();
  }

  private accept(ws: WebSocket, serverId: string): void {
    const s = this.ctx.state.servers.get(serverId);
    const game = this.game(serverId);
    if (!s || !game) return ws.close(1011, 'server not found');
    const conn = new ConsoleConnection(ws, serverId, {
      signer: this.signer,
      game,
      state: () => s.state,
      stats: () => this.stats(s),
      power: (signal) => this.ctx.lifecycle.power(s, signal),
      ...(this.ctx.hostile ? { shape: (event: string, args: readonly string[]) => hostileConsoleArgs(event, args, { states: this.ctx.hostileStates }) } : {}),
    });
    let set = this.connections.get(serverId);
    if (!set) this.connections.set(serverId, (set = new Set()));
    set.add(conn);
    ws.on('close', () => set.delete(conn));
  }

  private stats(s: ServerRecord): Record<string, unknown> {
    const st = this.ctx.lifecycle.status(s);
    const keys = ['memory_bytes', 'memory_limit_bytes', 'cpu_absolute', 'network', 'uptime', 'state', 'disk_bytes'];
    return Object.fromEntries(keys.map((k) => [k, st[k]]));
  }

  private pushStats(): void {
    this.ticks++;
    for (const [id, set] of this.connections) {
      const s = this.ctx.state.servers.get(id);
      if (!s || set.size === 0) continue;
      if (s.state === 'offline' && this.ticks % OFFLINE_STATS_EVERY !== 0) continue;
      const payload = JSON.stringify(this.stats(s));
      for (const c of set) c.event('stats', payload);
    }
  }

  private serverDeleted(id: string): void {
    for (const c of this.connections.get(id) ?? []) c.deleted();
    this.games.get(id)?.close();
    this.games.delete(id);
  }
}

function refuse(socket: Duplex, status: number, text: string): true {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  return true;
}
