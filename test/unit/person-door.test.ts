import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Asker, askLine, askSecret, askYesNo } from '../../src/core/person/ask.js';
import { InterruptedError } from '../../src/core/errors.js';
import { Interrupts, SignalHub } from '../../src/core/run/interrupts.js';
import { realClock } from '../../src/core/run/context.js';
import { streamsFor } from '../../src/core/terminal/io.js';
import type { InStream } from '../../src/core/terminal/streams.js';
import { capture } from '../helpers/context.js';

// The person door (issue 50 item 1; src/ARCHITECTURE.md "Doors"): one folder, src/core/person/,
// asks every question and reads every key. This test finds, anywhere else in src/, what reads a
// terminal as a terminal: readline (its prompts and key decoding), keypress events, raw mode
// switched on and stdin read chunk by chunk (a piped input is read whole, core/terminal/streams.ts).
// A terminal given back (raw mode off on exit, core/run/context.ts) reads nothing. The second
// half runs the door itself: Ctrl-C at a question is the run's SIGINT.

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const DOOR = 'core/person/';

const READS_TERMINAL: { pattern: RegExp; what: string }[] = [
  { pattern: /['"]node:readline(\/promises)?['"]|['"]readline['"]/, what: 'readline' },
  { pattern: /emitKeypressEvents|['"]keypress['"]/, what: 'keypress events' },
  { pattern: /setRawMode\??\.?\(\s*(?!false\s*\))/, what: 'raw mode on' },
  { pattern: /\b(stdin|input)\.(on|once)\(\s*['"](data|readable)['"]/, what: 'keys read from stdin' },
];

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield path;
  }
}

/** Every terminal read outside the door: `file:line: what`. */
export function terminalReads(files: Iterable<[string, string]>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    // The sandbox is a service with no terminal (ARCHITECTURE.md "Layers").
    if (file.startsWith(DOOR) || file.startsWith('sandbox/')) continue;
    text.split('\n').forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
      // The stream type declares the method; declaring it reads nothing.
      if (/^\s*setRawMode\?\(on: boolean\)/.test(line)) return;
      for (const r of READS_TERMINAL) if (r.pattern.test(line)) found.push(`${file}:${i + 1}: ${r.what}`);
    });
  }
  return found;
}

const tree = (): [string, string][] => [...sources(SRC)].map((p) => [relative(SRC, p).replace(/\\/g, '/'), readFileSync(p, 'utf8')]);

describe('the person door: nothing but src/core/person/ reads the terminal', () => {
  it('no module outside the door uses readline, keypress events or raw mode', () => {
    expect(terminalReads(tree())).toEqual([]);
  });

  it('the door holds the questions, the console\'s input line and the keys of gsh top', () => {
    const door = tree().filter(([f]) => f.startsWith(DOOR)).map(([f]) => f).sort();
    expect(door).toEqual(['core/person/ask.ts', 'core/person/keys.ts', 'core/person/line-input.ts']);
  });

  it('can fail: a prompt, a key reader or raw mode elsewhere is found', () => {
    expect(terminalReads([
      ['core/run/confirm.ts', "const { createInterface } = await import('node:readline/promises');"],
      ['leaf/announce-checks.ts', "import { createInterface } from 'readline';"],
      ['top/screen.ts', 'this.input.setRawMode?.(true);'],
      ['commands/auth.ts', 'stdin.setRawMode(on);'],
      ['console/attach.ts', 'emitKeypressEvents(io.stdin);'],
      ['core/run/context.ts', 'if (stdin.isRaw) stdin.setRawMode(false);'],
      ['core/person/ask.ts', "import { createInterface } from 'node:readline';"],
      ['top/screen.ts', "this.input.on('data', this.onData);"],
    ])).toEqual([
      'core/run/confirm.ts:1: readline',
      'leaf/announce-checks.ts:1: readline',
      'top/screen.ts:1: raw mode on',
      'commands/auth.ts:1: raw mode on',
      'console/attach.ts:1: keypress events',
      'top/screen.ts:1: keys read from stdin',
    ]);
  });
});

/** A run's side of the door as the runtime gives it: its hub, interrupts and a terminal stdin. */
function asker(opts: { rawMode?: boolean } = {}) {
  const signals = new EventEmitter();
  const hub = new SignalHub(signals);
  const interrupts = new Interrupts({ signals: hub, clock: realClock });
  const stdin = new PassThrough() as PassThrough & InStream;
  stdin.isTTY = true;
  const raw: boolean[] = [];
  if (opts.rawMode) stdin.setRawMode = (on: boolean) => raw.push(on);
  const stderr = capture({ isTTY: true });
  const io = streamsFor({ stdin, stdout: capture(), stderr, env: {} }, { color: 'never' });
  const a: Asker = {
    io,
    interrupt: (s) => hub.raise(s),
    interruptSignal: interrupts.signal,
    interruptible: (work) => interrupts.interruptible(work),
  };
  return { a, hub, signals, stdin, stderr, raw };
}

async function shown(stderr: { text(): string }, text: string): Promise<void> {
  for (let i = 0; i < 200 && !stderr.text().includes(text); i++) await new Promise((r) => setTimeout(r, 5));
  expect(stderr.text()).toContain(text);
}

describe('the person door asks', () => {
  it('a line: what was typed, trimmed; undefined when input ends first', async () => {
    const { a, stdin, stderr } = asker();
    const typed = askLine(a, 'Base URL: ');
    await shown(stderr, 'Base URL: ');
    stdin.write('  http://x/api/v2 \r');
    expect(await typed).toBe('http://x/api/v2');
    const ended = askLine(a, 'Again: ');
    await shown(stderr, 'Again: ');
    stdin.end();
    expect(await ended).toBeUndefined();
  });

  it('yes or no: only y or yes is yes', async () => {
    for (const [keys, yes] of [['y\r', true], ['YES\r', true], ['\r', false], ['n\r', false], ['yep\r', false]] as const) {
      const { a, stdin, stderr } = asker();
      const answer = askYesNo(a, 'Go?');
      await shown(stderr, 'Go? [y/N] ');
      stdin.write(keys);
      expect(await answer).toBe(yes);
    }
  });

  it('Ctrl-C at a question is the run\'s SIGINT: every listener of the hub hears it, and the question ends interrupted (130)', async () => {
    const { a, hub, stdin, stderr } = asker();
    const heard: string[] = [];
    hub.on('SIGINT', () => heard.push('fleet'));
    const answer = askYesNo(a, 'Delete?');
    await shown(stderr, 'Delete? [y/N]');
    stdin.write('\x03');
    const err = await answer.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as InterruptedError).exitCode).toBe(130);
    expect(heard).toEqual(['fleet']);
    expect(a.interruptSignal?.aborted).toBe(true);
  });

  it('SIGTERM from outside ends a question with 143; a question asked after the interrupt is not asked', async () => {
    const { a, signals, stderr } = asker();
    const answer = askLine(a, 'Press Enter: ');
    await shown(stderr, 'Press Enter: ');
    signals.emit('SIGTERM');
    expect(((await answer.catch((e: unknown) => e)) as InterruptedError).exitCode).toBe(143);
    const later = await askLine(a, 'Later: ').catch((e: unknown) => e);
    expect((later as InterruptedError).exitCode).toBe(143);
    expect(stderr.text()).not.toContain('Later: ');
  });

  it('one question at a time: the second waits for the first to be answered, its lead shown with it', async () => {
    const { a, stdin, stderr } = asker();
    const first = askLine(a, 'First: ');
    const second = askLine(a, 'Second: ', { lead: 'About the second\n' });
    await shown(stderr, 'First: ');
    expect(stderr.text()).not.toContain('About the second');
    stdin.write('1\r');
    expect(await first).toBe('1');
    await shown(stderr, 'Second: ');
    expect(stderr.text().indexOf('About the second\n')).toBeGreaterThan(stderr.text().indexOf('First: '));
    expect(stderr.text().indexOf('About the second\n')).toBeLessThan(stderr.text().indexOf('Second: '));
    stdin.write('2\r');
    expect(await second).toBe('2');
  });

  it('a secret: not echoed, raw mode on and given back, backspace erases; Ctrl-C is SIGINT (130), not "cancelled"', async () => {
    const { a, stdin, stderr, raw } = asker({ rawMode: true });
    const key = askSecret(a, 'API key: ');
    await shown(stderr, 'API key: ');
    stdin.write('sk_abX\x7fc\r');
    expect(await key).toBe('sk_abc');
    expect(stderr.text()).not.toMatch(/sk_|abc/);
    expect(raw).toEqual([true, false]);

    const other = asker({ rawMode: true });
    const heard: string[] = [];
    other.hub.on('SIGINT', () => heard.push('run'));
    const pressed = askSecret(other.a, 'API key: ');
    await shown(other.stderr, 'API key: ');
    other.stdin.write('sk_\x03');
    const err = await pressed.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InterruptedError);
    expect((err as InterruptedError).exitCode).toBe(130);
    expect(heard).toEqual(['run']);
    expect(other.raw).toEqual([true, false]);
  });

  it('a secret needs a terminal that has raw mode', async () => {
    const { a } = asker();
    await expect(askSecret(a, 'API key: ')).rejects.toThrow('standard input is not a terminal');
  });
});
