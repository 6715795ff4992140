import type { RuntimeState, ServerRecord } from '../state.js';
import { ConsoleBuffer } from './console-buffer.js';

// A simulated game server behind the console node: a realistic boot and shutdown log with ANSI
// colours, answers to a few commands, and floods for throughput tests. Node-originated lines carry
// the node prefix in square brackets (01-general-contract.md "Console socket": `console output`).

export const NODE_PREFIX = '[Sandbox Daemon]:';
const FLOOD_BATCH = 2000;
const MAX_FLOOD = 10_000_000;

const c = {
  reset: '\x1b[0m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m', bold: '\x1b[1m', red: '\x1b[31m',
};

function clockText(): string {
  return new Date().toISOString().slice(11, 19);
}

const info = (text: string) => `[${clockText()} INFO]: ${text}`;
const warn = (text: string) => `${c.yellow}[${clockText()} WARN]: ${text}${c.reset}`;

export interface GameCallbacks {
  /** Every stored line, in order, for the node to deliver. */
  line(line: string): void;
  /** The `stop` console command asks the power state machine to stop the server. */
  stop(): void;
  /** The `crash` console command (a sandbox command, for tests of `--ready`): the server dies at once. */
  crash(): void;
  /** Runs `fn`, which writes many lines, so that they leave in as few socket writes as possible. */
  batch(fn: () => void): void;
}

export class SimulatedGame {
  readonly buffer = new ConsoleBuffer();
  /**
   * What the server runs (test hook): a Minecraft server, whose boot ends with `Done (…)!`, or a
   * Node.js application, which never prints that line (it says it is listening instead).
   */
  runs: 'minecraft' | 'node' = 'minecraft';
  private closed = false;
  private readonly pending = new Set<NodeJS.Timeout | NodeJS.Immediate>();

  constructor(
    private readonly server: ServerRecord,
    private readonly callbacks: GameCallbacks,
  ) {}

  write(line: string): void {
    if (this.closed) return;
    this.callbacks.line(this.buffer.push(line));
  }

  node(text: string): void {
    this.write(`${c.bold}${c.yellow}${NODE_PREFIX}${c.reset} ${text}`);
  }

  onState(next: RuntimeState): void {
    const mem = this.server.limits.memory_mb;
    if (this.runs === 'node' && (next === 'starting' || next === 'running')) {
      if (next === 'starting') {
        this.node('Server marked as starting...');
        this.write(`${c.cyan}container@sandbox~${c.reset} npm start`);
        this.write('> api-backend@1.4.0 start');
        this.write('> node server.js');
      } else {
        this.write(`${c.green}Server listening on port 3000${c.reset}`);
      }
      return;
    }
    switch (next) {
      case 'starting':
        this.node('Server marked as starting...');
        this.node('Pulling Docker container image, this could take a few minutes to complete...');
        this.node('Finished pulling Docker container image');
        this.write(`${c.cyan}container@sandbox~${c.reset} java -Xms128M -Xmx${mem}M -jar server.jar nogui`);
        this.write(info('Starting minecraft server version 1.21.1'));
        this.write(info('Loading properties'));
        this.write(info('Default game type: SURVIVAL'));
        this.write(info(`Starting Minecraft server on 0.0.0.0:25565`));
        this.write(warn('**** SERVER IS RUNNING IN OFFLINE/INSECURE MODE!'));
        this.write(info('Preparing level "world"'));
        this.write(info('Preparing start region for dimension minecraft:overworld'));
        break;
      case 'running':
        this.write(info('Time elapsed: 1873 ms'));
        this.write(info(`${c.green}Done (3.214s)! For help, type "help"${c.reset}`));
        break;
      case 'stopping':
        this.node('Server marked as stopping...');
        this.write(info('Stopping the server'));
        this.write(info('Saving players'));
        this.write(info('Saving worlds'));
        this.write(info('ThreadedAnvilChunkStorage: All dimensions are saved'));
        break;
      case 'offline':
        this.node('Server marked as offline...');
        break;
    }
  }

  /** One console command: echoed, then answered as a Minecraft server would. */
  command(text: string): void {
    this.write(`> ${text}`);
    const [verb = '', ...rest] = text.trim().split(/\s+/);
    switch (verb.toLowerCase()) {
      case 'help':
        this.write(info('Commands: help, list, say <message>, tps, version, flood <lines>, stop, crash'));
        break;
      case 'list':
        this.write(info('There are 0 of a max of 20 players online: '));
        break;
      case 'say':
        this.write(info(`[Server] ${rest.join(' ')}`));
        break;
      case 'tps':
        this.write(info(`TPS from last 1m, 5m, 15m: ${c.green}20.0${c.reset}, ${c.green}20.0${c.reset}, ${c.green}20.0${c.reset}`));
        break;
      case 'version':
        this.write(info('This server is running Paper version 1.21.1-130 (MC: 1.21.1)'));
        break;
      case 'flood': {
        const n = Number(rest[0] ?? 1000);
        if (!Number.isInteger(n) || n < 1 || n > MAX_FLOOD) this.write(info(`${c.red}flood takes a line count from 1 to ${MAX_FLOOD}${c.reset}`));
        else this.flood(n);
        break;
      }
      case 'stop':
        this.callbacks.stop();
        break;
      case 'crash':
        this.write(`${c.red}[${clockText()} ERROR]: Encountered an unexpected exception${c.reset}`);
        this.write(`${c.red}java.lang.OutOfMemoryError: Java heap space${c.reset}`);
        this.callbacks.crash();
        break;
      default:
        this.write(info(`${c.red}Unknown or incomplete command, see below for error${c.reset}`));
    }
  }

  /**
   * Writes `n` numbered lines (`flood i/n ...`): as fast as the event loop allows in batches, or
   * one every `everyMs` real milliseconds. Resolves when the last line is written.
   */
  flood(n: number, opts: { everyMs?: number } = {}): Promise<void> {
    let i = 0;
    const lineText = (k: number) => info(`flood ${k}/${n} the quick brown fox jumps over the lazy dog`);
    return new Promise((resolve) => {
      const step = () => {
        if (this.closed) return resolve();
        if (opts.everyMs !== undefined) {
          this.write(lineText(++i));
        } else {
          const end = Math.min(n, i + FLOOD_BATCH);
          this.callbacks.batch(() => {
            while (i < end) this.write(lineText(++i));
          });
        }
        if (i >= n) return resolve();
        const handle: NodeJS.Timeout | NodeJS.Immediate = opts.everyMs !== undefined
          ? setTimeout(() => { this.pending.delete(handle); step(); }, opts.everyMs)
          : setImmediate(() => { this.pending.delete(handle); step(); });
        this.pending.add(handle);
      };
      step();
    });
  }

  close(): void {
    this.closed = true;
    for (const h of this.pending) {
      clearTimeout(h as NodeJS.Timeout);
      clearImmediate(h as NodeJS.Immediate);
    }
    this.pending.clear();
  }
}
