// Offsets to 1-based line and column (UTF-16 code units), by binary search over line starts.

export class LineIndex {
  private lineStarts: number[] | undefined;

  constructor(readonly text: string) {}

  /** Found on first use: a file without problems never asks for a position. */
  private get starts(): number[] {
    if (!this.lineStarts) {
      this.lineStarts = [0];
      for (let i = this.text.indexOf('\n'); i !== -1; i = this.text.indexOf('\n', i + 1)) this.lineStarts.push(i + 1);
    }
    return this.lineStarts;
  }

  position(offset: number): { line: number; column: number } {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= clamped) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: clamped - (this.starts[low] ?? 0) + 1 };
  }

  /** The text of a 1-based line, without its line break. */
  lineText(line: number): string {
    const start = this.starts[line - 1];
    if (start === undefined) return '';
    const next = this.starts[line];
    const end = next === undefined ? this.text.length : next - 1;
    return this.text.slice(start, end).replace(/\r$/, '');
  }
}
