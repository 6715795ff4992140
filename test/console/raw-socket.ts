import { WebSocket } from 'ws';

// A bare socket client for testing the sandbox console node frame by frame.

export interface Frame {
  event: string;
  args?: string[];
}

export class RawSocket {
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  closed: { code: number } | undefined;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      this.wake();
    });
    ws.on('close', (code) => {
      this.closed = { code };
      this.wake();
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const sock = new RawSocket(ws);
      ws.once('open', () => resolve(sock));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  send(event: string, ...args: string[]): void {
    this.ws.send(JSON.stringify({ event, args }));
  }

  /** Resolves with the first frame (from index `from`) that matches. */
  async next(match: (f: Frame) => boolean, from = 0, timeoutMs = 5000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      if (this.closed) throw new Error(`socket closed (${this.closed.code}) before a matching frame`);
      if (Date.now() > deadline) throw new Error(`no matching frame in ${timeoutMs} ms; got ${JSON.stringify(this.frames.slice(-5))}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 50);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  lines(): string[] {
    return this.frames.filter((f) => f.event === 'console output').map((f) => f.args?.[0] ?? '');
  }

  close(): void {
    this.ws.terminate();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const fn of w) fn();
  }
}

export const isEvent = (name: string) => (f: Frame) => f.event === name;
