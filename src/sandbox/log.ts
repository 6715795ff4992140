import type { RequestLogEntry } from './types.js';

// The request log tests and scripts read (admin: GET /__sandbox/log). Entries are appended in
// arrival order and completed when the request ends; listeners see completed entries.

export class RequestLog {
  readonly entries: RequestLogEntry[] = [];
  private readonly listeners = new Set<(e: RequestLogEntry) => void>();
  private seq = 0;

  open(partial: Omit<RequestLogEntry, 'seq' | 'at' | 'status' | 'replayed'>): RequestLogEntry {
    this.seq += 1;
    const entry: RequestLogEntry = { seq: this.seq, at: new Date().toISOString(), status: null, replayed: false, ...partial };
    this.entries.push(entry);
    return entry;
  }

  done(entry: RequestLogEntry): void {
    for (const l of this.listeners) {
      try {
        l(entry);
      } catch {
        // A listener's bug must not break the request.
      }
    }
  }

  onEntry(listener: (e: RequestLogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  clear(): void {
    this.entries.length = 0;
  }
}
