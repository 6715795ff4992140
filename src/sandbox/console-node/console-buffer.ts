// One server's console output as the node keeps it: numbered lines, the newest MAX_RETAINED.
// `send logs` replays the tail; `send history` pages backwards from the newest line.
//
// History paging (the contract gives the shape `data`, `cursor`, `has_more` but not the
// direction; ours): without a cursor the newest `limit` lines; `cursor` is the sequence number of
// the oldest line returned, and passing it back returns the `limit` lines before it. `data` is
// always oldest first. `cursor` is omitted when `has_more` is false.

export const MAX_RETAINED = 50_000;
/** Console lines are capped at 4096 bytes (01-general-contract.md "Limits": socket frames). */
export const MAX_LINE_BYTES = 4096;

export interface HistoryPage {
  data: string[];
  cursor?: string;
  has_more: boolean;
}

export class ConsoleBuffer {
  private readonly lines: string[] = [];
  /** Sequence number of lines[0]. */
  private first = 1;

  /** Appends one line (capped) and returns it as stored. */
  push(line: string): string {
    const capped = capLine(line);
    this.lines.push(capped);
    if (this.lines.length > MAX_RETAINED * 1.2) {
      const drop = this.lines.length - MAX_RETAINED;
      this.lines.splice(0, drop);
      this.first += drop;
    }
    return capped;
  }

  tail(n: number): string[] {
    return this.lines.slice(Math.max(0, this.lines.length - n));
  }

  get size(): number {
    return this.lines.length;
  }

  history(cursor: number | undefined, limit: number): HistoryPage {
    const end = cursor === undefined ? this.lines.length : Math.max(0, Math.min(this.lines.length, cursor - this.first));
    const start = Math.max(0, end - limit);
    const data = this.lines.slice(start, end);
    const hasMore = start > 0;
    return hasMore ? { data, cursor: String(this.first + start), has_more: true } : { data, has_more: false };
  }
}

/** Truncates to MAX_LINE_BYTES without splitting a UTF-8 character. */
export function capLine(line: string): string {
  if (line.length * 3 <= MAX_LINE_BYTES) return line;
  const buf = Buffer.from(line);
  if (buf.length <= MAX_LINE_BYTES) return line;
  // buf[end] is the first byte cut off; while it continues a character, that character is cut too.
  let end = MAX_LINE_BYTES;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}
