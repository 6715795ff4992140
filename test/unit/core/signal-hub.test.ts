import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SignalHub } from '../../../src/core/run/interrupts.js';

// Issue 43 item 6: one listener per signal on the process, whatever listens in the run.
describe('SignalHub', () => {
  it('holds one process listener per signal while anyone listens, and tells each listener once', () => {
    const process = new EventEmitter();
    const hub = new SignalHub(process);
    const heard: string[] = [];
    const listeners = Array.from({ length: 20 }, (_, i) => () => void heard.push(`l${i}`));
    for (const l of listeners) hub.on('SIGINT', l);
    hub.on('SIGTERM', listeners[0]!);
    expect(process.listenerCount('SIGINT')).toBe(1);
    expect(process.listenerCount('SIGTERM')).toBe(1);
    process.emit('SIGINT');
    expect(heard).toHaveLength(20);
    expect(heard[0]).toBe('l0');
    for (const l of listeners) hub.off('SIGINT', l);
    expect(process.listenerCount('SIGINT')).toBe(0);
    expect(process.listenerCount('SIGTERM')).toBe(1);
    hub.off('SIGTERM', listeners[0]!);
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });

  it('a listener that removes itself or another while the signal is told does not skip the rest', () => {
    const process = new EventEmitter();
    const hub = new SignalHub(process);
    const heard: number[] = [];
    const b = () => void heard.push(2);
    const a = () => {
      heard.push(1);
      hub.off('SIGINT', a);
      hub.off('SIGINT', b);
    };
    hub.on('SIGINT', a);
    hub.on('SIGINT', b);
    process.emit('SIGINT');
    expect(heard).toEqual([1, 2]);
    expect(process.listenerCount('SIGINT')).toBe(0);
  });
});
