import { errorStream, outputStream } from '../core/terminal/io.js';
import { spawn } from 'node:child_process';
import type { Stream } from 'node:stream';
import { constants as osConstants } from 'node:os';
import type { Command } from 'commander';
import { GshError, UsageError } from '../core/errors.js';
import type { Context } from '../core/run/context.js';
import { offline as local } from './offline.js';
import type { Sandbox, SandboxOptions } from '../sandbox/index.js';
import { registerPersonCommands } from './sandbox-person.js';

// `gsh sandbox start` and `gsh sandbox exec -- CMD ...` (ARCHITECTURE.md "Sandbox"). The emulator
// itself is src/sandbox/; it is imported only when one of these runs.

interface SandboxFlags {
  port?: string;
  servers?: string;
  seed?: string;
  timeScale?: string;
  rateLimit?: string;
  strict?: boolean;
  hostile?: boolean;
  quiet?: boolean;
}

function intFlag(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

export function sandboxOptions(flags: SandboxFlags): SandboxOptions {
  const opts: SandboxOptions = {};
  const port = intFlag('port', flags.port, 0, 65535);
  const servers = intFlag('servers', flags.servers, 0, 10_000);
  const seed = intFlag('seed', flags.seed, 0, 2 ** 31 - 1);
  const rateLimit = intFlag('rate-limit', flags.rateLimit, 1, 1_000_000);
  if (port !== undefined) opts.port = port;
  if (servers !== undefined) opts.servers = servers;
  if (seed !== undefined) opts.seed = seed;
  if (rateLimit !== undefined) opts.rateLimit = rateLimit;
  if (flags.strict) opts.strict = true;
  if (flags.hostile) opts.hostile = true;
  if (flags.timeScale !== undefined) {
    const x = Number(flags.timeScale);
    if (flags.timeScale.trim() === '' || !Number.isFinite(x) || x < 0) {
      throw new UsageError(`--time-scale must be a number of 0 or more, got ${JSON.stringify(flags.timeScale)}`);
    }
    opts.timeScale = x;
  }
  return opts;
}

async function start(opts: SandboxOptions): Promise<Sandbox> {
  const { startSandbox } = await import('../sandbox/index.js');
  try {
    return await startSandbox(opts);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new GshError(`port ${opts.port} is already in use`, 1, 'Pick another --port, or 0 for a free one.');
    throw err;
  }
}

function addCommonOptions(cmd: Command): Command {
  return cmd
    .option('--servers <n>', 'number of demo servers (default 3)')
    .option('--seed <n>', 'seed for demo data and probabilistic faults (default 1)')
    .option('--time-scale <x>', 'multiplier for simulated delays; 0.1 is ten times faster (default 1)')
    .option('--rate-limit <n>', 'requests per minute of the demo keys (default 1000)')
    .option('--strict', 'serve only what the contract shows: unshown fields absent or shaped otherwise')
    .option('--hostile', 'every name, message and console line carries escape sequences, bidi, zero-width and wide characters, CR, LF and TAB');
}

/** Exit code of a child as a shell reports it: its code, or 128 + signal number. */
export function childExitCode(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const n = signal ? osConstants.signals[signal] : undefined;
  return 128 + (n ?? 1);
}

/** A stream backed by a file descriptor is handed to the child as is (a terminal stays one); others are piped. */
function stdioFor(stream: object): 'pipe' | Stream {
  return typeof (stream as { fd?: unknown }).fd === 'number' ? (stream as Stream) : 'pipe';
}

/** Runs CMD against a fresh sandbox and resolves with CMD's exit code. */
export async function runExec(ctx: Context, opts: SandboxOptions, command: string, args: readonly string[]): Promise<number> {
  const sandbox = await start({ ...opts, port: 0 });
  try {
    return await new Promise<number>((resolve, reject) => {
      const child = spawn(command, args, {
        stdio: [stdioFor(ctx.stdin), stdioFor(ctx.stdout), stdioFor(ctx.stderr)],
        env: { ...ctx.env, GSH_BASE_URL: sandbox.baseUrl, GSH_API_KEY: sandbox.keys.all },
      });
      if (child.stdin) ctx.stdin.pipe(child.stdin);
      child.stdout?.pipe(ctx.stdout, { end: false });
      child.stderr?.pipe(ctx.stderr, { end: false });
      // Ctrl-C reaches the child through the terminal; we wait for it rather than die first.
      const ignore = () => {};
      const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
      const onTerm = forward('SIGTERM');
      const onHup = forward('SIGHUP');
      ctx.signals.on('SIGINT', ignore);
      ctx.signals.on('SIGTERM', onTerm);
      ctx.signals.on('SIGHUP', onHup);
      const cleanup = () => {
        ctx.signals.off('SIGINT', ignore);
        ctx.signals.off('SIGTERM', onTerm);
        ctx.signals.off('SIGHUP', onHup);
        if (child.stdin) ctx.stdin.unpipe(child.stdin);
      };
      child.once('error', (err: NodeJS.ErrnoException) => {
        cleanup();
        if (err.code === 'ENOENT') reject(new GshError(`command not found: ${command}`, 127));
        else if (err.code === 'EACCES') reject(new GshError(`permission denied: ${command}`, 126));
        else reject(new GshError(`could not run ${command}: ${err.message}`, 1));
      });
      child.once('close', (code, signal) => {
        cleanup();
        resolve(childExitCode(code, signal));
      });
    });
  } finally {
    await sandbox.close();
  }
}

/** `sandbox start`: serves until SIGINT or SIGTERM. */
async function serve(ctx: Context, options: SandboxOptions, quiet: boolean): Promise<void> {
  const sandbox = await start(options);
  const out = outputStream(ctx.stdout);
  out.write(`gsh sandbox listening on ${sandbox.baseUrl}${options.strict ? ' (strict: only what the contract shows)' : ''}${options.hostile ? ' (hostile: service text carries escape sequences)' : ''}\n`);
  out.write(`  all-scopes key: ${sandbox.keys.all}\n`);
  out.write(`  read-only key:  ${sandbox.keys.readOnly}\n`);
  out.write(`  admin API:      ${sandbox.origin}/__sandbox\n\n`);
  out.write(`export GSH_BASE_URL=${sandbox.baseUrl} GSH_API_KEY=${sandbox.keys.all}\n\n`);
  out.write('Press Ctrl-C to stop.\n');
  if (!quiet) {
    sandbox.onRequest((e) => {
      errorStream(ctx.stderr).write(`${e.method} ${e.path} → ${e.status ?? 'dropped'}${e.fault ? ` [${e.fault}]` : ''}${e.replayed ? ' [replayed]' : ''}\n`);
    });
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      ctx.signals.off('SIGINT', stop);
      ctx.signals.off('SIGTERM', stop);
      resolve();
    };
    ctx.signals.on('SIGINT', stop);
    ctx.signals.on('SIGTERM', stop);
  });
  await sandbox.close();
  errorStream(ctx.stderr).write('sandbox stopped\n');
}

export function register(cmd: Command): void {
  // exec passes everything after CMD through untouched; commander needs positional options here.
  cmd.enablePositionalOptions();
  registerPersonCommands(cmd);

  addCommonOptions(
    cmd
      .command('start')
      .description('Run the sandbox in the foreground and print its base URL and API keys')
      .option('--port <n>', 'port on 127.0.0.1 (default 0: a free port)')
      .option('-q, --quiet', 'do not print a line per request'),
  )
    .addHelpText('after', `
The sandbox emulates the API on 127.0.0.1 with demo data: an all-scopes key (*) and a read-only
key are printed, plus the lines to paste into another shell. Stop it with Ctrl-C.
Creating a server with -f fail=true makes its creation job fail (for trying --wait).
Admin API for scripts (no credential): http://127.0.0.1:PORT/__sandbox (log, faults, inject,
keys, state).

Examples:
  gsh sandbox start
  gsh sandbox start --port 8765 --servers 10 --seed 42
  gsh sandbox start --time-scale 0.1     # ten times faster jobs and power transitions
  gsh sandbox start --strict             # only what the contract shows (ids named id, no backup status,
                                         # application and plan as objects): try scripts against it
  gsh sandbox start --hostile            # names, messages and console lines carry escape sequences`)
    .action(async function (this: Command, flags: SandboxFlags) {
      const options = sandboxOptions(flags);
      await local(this, `start a sandbox on 127.0.0.1:${options.port ?? '(a free port)'} until Ctrl-C`, (ctx) => serve(ctx, options, flags.quiet === true));
    });

  addCommonOptions(

    cmd
      .command('exec')
      .description('Run CMD against a fresh sandbox (GSH_BASE_URL and GSH_API_KEY set), then stop it')
      .usage('[options] -- CMD [ARGS...]')
      .argument('<cmd...>', 'command and its arguments, after --')
      .passThroughOptions(),
  )
    .addHelpText('after', `
The sandbox listens on a free port for as long as CMD runs; CMD inherits the terminal. gsh exits
with CMD's exit code (128+n when CMD dies of signal n; 127 when CMD is not found).
Put -- before CMD so that CMD's own flags are not read as gsh flags.

Examples:
  gsh sandbox exec -- gsh servers list
  gsh sandbox exec --servers 5 -- sh -c 'gsh servers list && gsh me'
  gsh sandbox exec --time-scale 0.05 -- npm run e2e
  gsh sandbox exec --strict -- sh nightly-backup.sh   # a script against only what the contract shows`)
    .action(async function (this: Command, argv: string[], flags: SandboxFlags) {
      const [command, ...args] = argv;
      if (!command) throw new UsageError('missing CMD', 'Usage: gsh sandbox exec [options] -- CMD [ARGS...]');
      const options = sandboxOptions(flags);
      await local(this, `start a sandbox on a free port, run ${argv.join(' ')} against it, then stop it`, (ctx) => runExec(ctx, options, command, args));
    });
}
