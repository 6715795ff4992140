import { describe, expect, it } from 'vitest';
import { frame } from '../../../src/top/frame.js';
import { onKey, parseKeys } from '../../../src/top/keys.js';
import { type Sample, sampleOf } from '../../../src/top/sample.js';
import { applySamples, initialState, type TopState } from '../../../src/top/state.js';

// Acting from `gsh top` (issue 53; README "gsh top"): space marks servers, r/s/x ask to
// restart/start/stop the marked ones (or the selected one) on a confirmation line that shows the
// equivalent gsh command; y runs it (live.ts → actions.ts, the fleet runner), any other key cancels.

function fleet(): TopState {
  const s = initialState(false);
  const items = ['a-lobby', 'b-lobby', 'c-arena', 'd-hub'].map((name) => ({ id: `id-${name}`, name, status: { state: 'running', node_ready: true } }));
  applySamples(s, items.map((i) => sampleOf(i, 0)).filter((x): x is Sample => x !== undefined));
  return s;
}

/** The actions the keys ask for, in order. */
function press(s: TopState, keys: string): (string | undefined)[] {
  return parseKeys(keys).map((k) => onKey(s, k, 24));
}

const lastLine = (s: TopState) => frame(s, 100, 12).split('\n').at(-1);

describe('marks and actions', () => {
  it('space marks the selected server (again: unmarks); the marked rows show a *', () => {
    const s = fleet();
    press(s, ' jj ');
    expect([...s.marked]).toEqual(['id-a-lobby', 'id-c-arena']);
    const rows = frame(s, 100, 12).split('\n').filter((l) => /lobby|arena|hub/.test(l));
    expect(rows.map((l) => l.slice(0, 2))).toEqual([' *', '  ', '›*', '  ']);
    press(s, ' ');
    expect([...s.marked]).toEqual(['id-a-lobby']);
  });

  it('r on two marked servers: the confirmation line shows the gsh command for exactly them; y runs it', () => {
    const s = fleet();
    press(s, ' jj ');
    expect(press(s, 'r')).toEqual([undefined]);
    expect(s.confirm).toEqual({ action: 'restart', targets: [{ id: 'id-a-lobby', name: 'a-lobby' }, { id: 'id-c-arena', name: 'c-arena' }], command: 'gsh power restart -s id-a-lobby,id-c-arena --yes' });
    expect(lastLine(s)).toBe('y runs, other keys cancel: gsh power restart -s id-a-lobby,id-c-arena --yes');
    expect(press(s, 'y')).toEqual(['act']);
  });

  it('any other key cancels; with nothing marked, s and x act on the selected server', () => {
    const s = fleet();
    press(s, 'jx');
    expect(s.confirm?.command).toBe('gsh power stop -s id-b-lobby --yes');
    expect(press(s, 'n')).toEqual([undefined]);
    expect(s.confirm).toBeUndefined();
    expect(s.sort).toBe('name'); // the cancelling key did nothing else
    press(s, 's');
    expect(s.confirm?.command).toBe('gsh power start -s id-b-lobby --yes');
  });

  it('only marked servers still listed are acted on (a filter hides the others)', () => {
    const s = fleet();
    press(s, ' jj ');
    press(s, '/arena\r');
    press(s, 'r');
    expect(s.confirm?.targets.map((t) => t.id)).toEqual(['id-c-arena']);
  });
});
