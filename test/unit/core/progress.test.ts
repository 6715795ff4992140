import { describe, expect, it } from 'vitest';
import { progressBar } from '../../../src/core/transfer/progress.js';
import type { RuntimeView } from '../../../src/core/run/runtime-view.js';
import { capture } from '../../helpers/context.js';

// Issue 37 item 6: a transfer stopped by Ctrl-C clears its progress line, and bytes that the
// reads already under way still count afterwards draw nothing more (the error and the note
// below it stay on their own lines).

function view() {
  const stderr = capture({ isTTY: true, columns: 100 });
  let now = 0;
  const rt = {
    io: { stderrTTY: true, stderr, columns: 100, rawStderr: stderr, colorErr: false },
    singleTarget: true,
    now: () => (now += 200),
  } as unknown as RuntimeView;
  return { rt, stderr };
}

describe('the progress line', () => {
  it('draws, clears once on stop, and never draws again', () => {
    const { rt, stderr } = view();
    const bar = progressBar(rt, 1000);
    bar.update(100);
    expect(stderr.text()).toMatch(/10%/);
    bar.stop();
    const cleared = stderr.text();
    expect(cleared.endsWith('\r\x1b[K')).toBe(true);
    bar.update(600);
    bar.update(1000);
    bar.stop();
    expect(stderr.text()).toBe(cleared);
  });
});
