import type { InStream } from '../terminal/streams.js';

// Keys read one by one, for a view that answers each key as it comes (`gsh top`): the terminal
// in raw mode while they are read, given back (cooked, no longer read) by the function returned.
// Part of the person door (ask.ts): no other module puts the terminal in raw mode.

export function readKeys(input: InStream, onKeys: (chunk: string) => void): () => void {
  const onData = (chunk: Buffer | string) => onKeys(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
  input.setRawMode?.(true);
  input.on('data', onData);
  input.resume();
  return () => {
    input.off('data', onData);
    input.setRawMode?.(false);
    input.pause();
  };
}
