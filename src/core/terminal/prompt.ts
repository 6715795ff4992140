import { UsageError } from '../errors.js';
import type { Streams } from './io.js';
import { readAll } from './streams.js';

// Prompts on the terminal (stderr), for the interactive paths only. Secrets are read without
// echo and never appear on argv or in history.

export async function promptLine(io: Streams, question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: io.stdin, output: io.rawStderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

export async function promptHidden(io: Streams, question: string): Promise<string> {
  const stdin = io.stdin;
  if (!stdin.isTTY || !stdin.setRawMode) throw new UsageError('cannot prompt: standard input is not a terminal');
  io.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === '\r' || ch === '\n' || ch === '\u0004') {
            stdin.off('data', onData);
            resolve(value.trim());
            return;
          }
          if (ch === '\u0003') {
            stdin.off('data', onData);
            reject(new UsageError('cancelled'));
            return;
          }
          if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
          else value += ch;
        }
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    io.stderr.write('\n');
  }
}

/** All of stdin when it is a pipe or file (the non-interactive way to hand over a secret). */
export async function readAllStdin(io: Streams): Promise<string> {
  return (await readAll(io.stdin)).toString('utf8');
}
