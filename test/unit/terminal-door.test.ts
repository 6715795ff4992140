import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The terminal door (issue #44; src/ARCHITECTURE.md "Doors"): a stream that may be a terminal is
// written raw only by the door (core/terminal/terminal-text.ts, core/terminal/io.ts). Everyone else writes to the
// streams core/terminal/io.ts hands out (Streams.stdout/stderr, wrapped by the sanitiser on a terminal), or
// through door(stream).write, which takes SafeText only. This test finds every mention of a raw
// stream (`rawStdout`, `rawStderr`, `ctx.stdout`, `ctx.stderr`, `process.stdout`,
// `process.stderr`) in src/ outside the door, other than reading its terminal facts (`isTTY`,
// `columns`, `rows`) or listening to it; each left is listed below with why it may be there.

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** The door itself. */
const DOOR = new Set(['core/terminal/terminal-text.ts', 'core/terminal/io.ts']);

/**
 * Raw streams outside the door, each with the reason it may be there. A line of a file listed
 * here is allowed when it holds one of the file's patterns.
 */
const ALLOWED: Record<string, { pattern: RegExp; why: string }[]> = {
  'cli.ts': [
    { pattern: /process\.std(out|err)|ctx\.std(out|err)/, why: 'builds the context from process and records its streams; its last-resort lines are gsh\'s own' },
  ],
  'core/run/context.ts': [{ pattern: /process\.std(out|err)/, why: 'processContext(): the process\'s streams become the context\'s' }],
  'boot/bundle-loader.ts': [{ pattern: /process\.std(out|err)/, why: 'the launcher prints a help this build printed before (its own bytes) and its own error line' }],
  'core/run/poll.ts': [{ pattern: /rt\.io\.rawStderr/, why: 'ora draws the --wait spinner; its text passes visible() (progressFor)' }],
  'core/person/ask.ts': [{ pattern: /a\.io\.rawStderr/, why: 'the person door: readline echoes what the person types; the question is gsh\'s own, service text in it passes visible() (core/run/confirm.ts)' }],
  'console/attach.ts': [
    { pattern: /opts\.raw \? io\.rawStdout/, why: '`console attach --raw` asks for the bytes as they came' },
    { pattern: /io\.stdoutTTY \? io\.rawStdout : io\.rawStderr/, why: 'readline echoes the command the person types' },
  ],
  'console/multi.ts': [
    { pattern: /opts\.raw \? io\.rawStdout/, why: '`console attach --raw` asks for the bytes as they came' },
    { pattern: /io\.stdoutTTY \? io\.rawStdout : io\.rawStderr/, why: 'readline echoes the command the person types' },
  ],
  'top/live.ts': [{ pattern: /rt\.io\.rawStdout/, why: 'gsh top draws whole frames: service text in them passes visible()/fitWidth() (src/top/frame.ts)' }],
  'top/screen.ts': [{ pattern: /rawStdout/, why: 'gsh top\'s screen (a comment naming the stream it is handed)' }],
  'commands/sandbox.ts': [{ pattern: /stdioFor\(ctx\.std(in|out|err)\)|child\.std(out|err)\?\.pipe\(ctx\.std(out|err)/, why: '`sandbox exec -- CMD` hands the terminal to CMD' }],
};

const RAW = /\braw(Stdout|Stderr)\b|\b(ctx|context|process)\.(stdout|stderr)\b/g;
/** Reading a stream's terminal facts, or listening to it, writes nothing. */
const HARMLESS_AFTER = /^\s*(\?\.|\.)(isTTY|columns|rows|on|once|off|removeListener|getColorDepth|hasColors)\b/;

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) yield path;
  }
}

/** Every raw-stream mention outside the door and the allowed list: `file:line: text`. */
export function rawStreamUses(files: Iterable<[string, string]>): string[] {
  const found: string[] = [];
  for (const [file, text] of files) {
    // The sandbox is a service, not a terminal's writer, and may not import core (ARCHITECTURE.md "Layers").
    if (DOOR.has(file) || file.startsWith('sandbox/')) continue;
    text.split('\n').forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
      for (const m of line.matchAll(RAW)) {
        if (HARMLESS_AFTER.test(line.slice((m.index ?? 0) + m[0].length))) continue;
        // Handed to the door: door(stream) takes SafeText only, outputStream(stream) sanitises on a terminal, errorStream(stream) too and keeps a log's lines.
        if (/\b(door|outputStream|errorStream)\(\s*[\w.]*$/.test(line.slice(0, m.index ?? 0))) continue;
        if ((ALLOWED[file] ?? []).some((a) => a.pattern.test(line))) continue;
        found.push(`${file}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  return found;
}

const tree = (): [string, string][] => [...sources(SRC)].map((p) => [relative(SRC, p).replace(/\\/g, '/'), readFileSync(p, 'utf8')]);

describe('the terminal door', () => {
  it('no module but the door writes to a raw terminal stream (the rest listed, each with its reason)', () => {
    expect(rawStreamUses(tree())).toEqual([]);
  });

  it('can fail: a raw write, an alias of a raw stream, or one handed on is found', () => {
    const hits = rawStreamUses([
      ['core/fleet/fleet.ts', "rt.io.rawStderr.write(`\\r\\x1b[2K${name}`);"],
      ['commands/x.ts', 'const out = ctx.stdout;\nout.write(name);'],
      ['console/x.ts', 'new LineSink(io.rawStdout, {});'],
      ['commands/y.ts', 'if (ctx.stdout.isTTY) rt.io.stdout.write(name);'],
      ['core/terminal/io.ts', 'rawStdout: ctx.stdout,'],
      ['top/live.ts', 'other.write(rt.io.rawStderr)'],
    ]);
    expect(rawStreamUses([['core/fleet/fleet.ts', 'door(rt.io.rawStderr).write(term`x`); outputStream(ctx.stdout).write(x); errorStream(ctx.stderr).write(x);']])).toEqual([]);
    expect(hits).toEqual([
      'core/fleet/fleet.ts:1: rt.io.rawStderr.write(`\\r\\x1b[2K${name}`);',
      'commands/x.ts:1: const out = ctx.stdout;',
      'console/x.ts:1: new LineSink(io.rawStdout, {});',
      'top/live.ts:1: other.write(rt.io.rawStderr)',
    ]);
  });

  it('every allowed entry is still needed', () => {
    const files = new Map(tree());
    const stale = Object.entries(ALLOWED).flatMap(([file, entries]) =>
      // gsh top's files are another change's to shape (they may move to door()); the rest must still need their entry.
      entries.filter((a) => !file.startsWith('top/') && !(files.get(file) ?? '').split('\n').some((line) => a.pattern.test(line) && new RegExp(RAW.source).test(line))).map((a) => `${file}: ${a.pattern}`),
    );
    expect(stale).toEqual([]);
  });
});
