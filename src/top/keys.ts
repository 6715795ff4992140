import { listRows } from './frame.js';
import { askAction, move, setFilter, sortBy, toggleMark, type TopState } from './state.js';

// Keys of `gsh top` (README "gsh top"), read from the terminal in raw mode: bytes → key names →
// a change of state, or an action for the live loop.

export type Key = 'up' | 'down' | 'pageup' | 'pagedown' | 'home' | 'end' | 'enter' | 'escape' | 'backspace' | 'left' | 'ctrl-c' | { char: string };

const SEQUENCES: Record<string, Key> = {
  '\x1b[A': 'up', '\x1bOA': 'up', '\x1b[B': 'down', '\x1bOB': 'down', '\x1b[D': 'left', '\x1bOD': 'left',
  '\x1b[5~': 'pageup', '\x1b[6~': 'pagedown', '\x1b[H': 'home', '\x1b[1~': 'home', '\x1bOH': 'home',
  '\x1b[F': 'end', '\x1b[4~': 'end', '\x1bOF': 'end',
};

/** The keys in one chunk of terminal input (a paste may hold several). */
export function parseKeys(chunk: string): Key[] {
  const keys: Key[] = [];
  for (let i = 0; i < chunk.length;) {
    const c = chunk[i] as string;
    if (c === '\x1b') {
      const seq = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z])/.exec(chunk.slice(i));
      if (seq) {
        const known = SEQUENCES[seq[0]];
        if (known) keys.push(known);
        i += seq[0].length;
        continue;
      }
      keys.push('escape');
      i++;
      continue;
    }
    if (c === '\r' || c === '\n') keys.push('enter');
    else if (c === '\x7f' || c === '\b') keys.push('backspace');
    else if (c === '\x03') keys.push('ctrl-c');
    else if (c >= ' ') keys.push({ char: c });
    i++;
  }
  return keys;
}

/** What the live loop must do after a key; undefined: the state changed (or not), just redraw. */
export type Action = 'quit' | 'interrupt' | 'open' | 'close' | 'act' | undefined;

/** Applies one key to the state of a screen `height` lines high. */
export function onKey(state: TopState, key: Key, height: number): Action {
  if (key === 'ctrl-c') return 'interrupt';
  // The key overlay: any key goes back to what was under it.
  if (state.help) {
    state.help = false;
    return undefined;
  }
  if (state.typing !== undefined) return typing(state, key);
  const ch = typeof key === 'object' ? key.char : undefined;
  // The confirmation line: y runs what it shows, any other key leaves it.
  if (state.confirm) {
    if (ch === 'y' || ch === 'Y') return 'act';
    delete state.confirm;
    return undefined;
  }
  delete state.actionNote;
  if (ch === '?') {
    state.help = true;
    return undefined;
  }
  if (ch === 'q' || ch === 'Q') return 'quit';
  if (state.detail) return key === 'escape' || key === 'left' || key === 'backspace' ? 'close' : undefined;
  const page = Math.max(1, listRows(height));
  switch (ch ?? key) {
    case 'up': case 'k': move(state, -1, page); break;
    case 'down': case 'j': move(state, 1, page); break;
    case 'pageup': move(state, -page, page); break;
    case 'pagedown': move(state, page, page); break;
    case ' ': toggleMark(state); break;
    case 'r': askAction(state, 'restart'); break;
    case 's': askAction(state, 'start'); break;
    case 'x': askAction(state, 'stop'); break;
    case 'home': case 'g': move(state, -Infinity, page); break;
    case 'end': case 'G': move(state, Infinity, page); break;
    case 'c': sortBy(state, 'cpu'); break;
    case 'm': sortBy(state, 'memory'); break;
    case 'n': sortBy(state, 'name'); break;
    case 't': sortBy(state, 'state'); break;
    case '/': state.typing = state.filter; break;
    case 'escape': if (state.filter) setFilter(state, ''); break;
    case 'enter': return state.selected === undefined ? undefined : 'open';
  }
  return undefined;
}

/** Typing a filter after `/`: it applies as it is typed; enter keeps it, escape clears it. */
function typing(state: TopState, key: Key): Action {
  const text = state.typing ?? '';
  if (key === 'enter') state.typing = undefined;
  else if (key === 'escape') {
    state.typing = undefined;
    setFilter(state, '');
    return undefined;
  } else if (key === 'backspace') state.typing = [...text].slice(0, -1).join('');
  else if (typeof key === 'object') state.typing = text + key.char;
  if (state.typing !== undefined) setFilter(state, state.typing);
  return undefined;
}
