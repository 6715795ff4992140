import { formatBytes } from '../bytes.js';
import { coloured, door, term, visible } from '../terminal/terminal-text.js';
import type { RuntimeView } from '../run/runtime-view.js';

// The transfer progress line (downloads, uploads, directory uploads): size, rate and time left on
// a terminal's stderr, one line redrawn at most ten times a second; nothing on a pipe. Drawn on
// the io layer: one line with \r needs no library, and ora (the spinner the waits use) draws no bar.

export interface Progress {
  /** Bytes moved so far (absolute), and for directory uploads the files finished. */
  update(bytes: number, filesDone?: number): void;
  stop(): void;
}

const SILENT: Progress = { update() {}, stop() {} };

/** `total` bytes when known; `files` for a directory upload (shown as files done / total). */
export function progressBar(rt: RuntimeView, total: number | undefined, files?: number): Progress {
  if (!rt.io.stderrTTY || !rt.singleTarget) return SILENT;
  const started = rt.now();
  let last = 0;
  let drawn = false;
  const width = Math.max(10, Math.min(30, (rt.io.stderr.columns ?? rt.io.columns) - 60 - (files !== undefined ? 16 : 0)));
  const draw = (bytes: number, filesDone: number) => {
    const secs = Math.max((rt.now() - started) / 1000, 0.001);
    const rate = bytes / secs;
    // gsh's own numbers only, drawn through the terminal door (core/terminal/terminal-text.ts).
    const size = (n: number) => visible(formatBytes(n));
    let line = term`${size(bytes)}${total !== undefined ? term` / ${size(total)}` : term``}  ${size(Math.round(rate))}/s`;
    if (total !== undefined && total > 0) {
      const frac = Math.min(1, bytes / total);
      const fill = Math.round(frac * width);
      const left = rate > 0 ? Math.ceil(Math.max(0, total - bytes) / rate) : undefined;
      line = term`${coloured(visible('█'.repeat(fill)), '36', rt.io.colorErr)}${visible('░'.repeat(width - fill))} ${visible(String(Math.floor(frac * 100)).padStart(3))}%  ${line}${left !== undefined ? term`  ${left} s left` : term``}`;
    }
    if (files !== undefined) line = term`${filesDone}/${files} files  ${line}`;
    door(rt.io.rawStderr).write(term`\r${line}\x1b[K`);
    drawn = true;
  };
  let doneFiles = 0;
  let stopped = false;
  return {
    update(bytes, filesDone) {
      // Reads already under way when a transfer stops (Ctrl-C) still count bytes: the line stays cleared.
      if (stopped) return;
      const now = rt.now();
      const finished = filesDone !== undefined && filesDone !== doneFiles;
      if (filesDone !== undefined) doneFiles = filesDone;
      if (now - last < 100 && bytes !== total && !finished) return;
      last = now;
      draw(bytes, doneFiles);
    },
    stop() {
      if (drawn && !stopped) door(rt.io.rawStderr).write(term`\r\x1b[K`);
      stopped = true;
    },
  };
}
