import { readFileSync } from 'node:fs';
import { UsageError } from '../../core/errors.js';
import { readAll } from '../../core/terminal/streams.js';

// A manifest named on the command line (or - for stdin), read once: its text is what travels in
// the body (the `#service-init` header is a YAML comment, so the text is sent, not a parse), and
// the same text is where the service's field errors are shown.

export interface ManifestInput {
  /** How the file is named in messages. */
  name: string;
  /** As read, for the local linter (which checks the encoding itself). */
  bytes: Buffer;
  text: string;
}

export async function readManifest(path: string, stdin: NodeJS.ReadableStream): Promise<ManifestInput> {
  try {
    const bytes = path === '-' ? await readAll(stdin) : readFileSync(path);
    const text = bytes.toString('utf8');
    if (text.trim() === '') throw new UsageError(`${path === '-' ? 'standard input' : path} is empty; a manifest needs at least #service-init and version: 1`);
    return { name: path === '-' ? '<stdin>' : path, bytes, text };
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file or directory' : code === 'EISDIR' ? 'it is a directory' : code ?? (err as Error).message;
    throw new UsageError(`cannot read ${path}: ${why}`);
  }
}
