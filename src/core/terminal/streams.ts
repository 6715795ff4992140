import type { Readable, Writable } from 'node:stream';

// The streams a command is handed (ARCHITECTURE.md "Plan, then execute": the context) and what
// reads them whole: their own module, below the context, so the terminal door (io.ts,
// terminal-text.ts) and the flags' readers need nothing of a run to name them.

/** The environment a command sees (the process's, or a test's own). */
export type Env = Record<string, string | undefined>;

export interface OutStream extends Writable {
  isTTY?: boolean;
  /** Terminal width; unknown (0 or absent) when not a terminal. */
  columns?: number;
}

export interface InStream extends Readable {
  isTTY?: boolean;
  setRawMode?(on: boolean): unknown;
}

/** All of stdin (a pipe or file) as bytes. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}
