import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/sandbox/clock.js';

// The sandbox's manual time (SandboxOptions.manualTime): simulated delays wait for advance(), so a
// test decides at which step of a run a power transition or a job's progress happens.

describe('Clock with manual time', () => {
  it('runs what falls due in order, timers armed by a timer included, and nothing early', () => {
    const clock = new Clock(1, true);
    const ran: string[] = [];
    clock.after(1500, () => {
      ran.push('stopped');
      clock.after(2500, () => ran.push('running'));
    });
    clock.after(500, () => ran.push('early'));
    const cancel = clock.after(1000, () => ran.push('cancelled'));
    cancel();
    clock.advance(1000);
    expect(ran).toEqual(['early']);
    clock.advance(2999);
    expect(ran).toEqual(['early', 'stopped']);
    expect(clock.pending).toBe(1);
    clock.advance(1);
    expect(ran).toEqual(['early', 'stopped', 'running']);
    expect(clock.pending).toBe(0);
  });

  it('close() drops what is pending; advance() needs manual time', () => {
    const clock = new Clock(1, true);
    let ran = false;
    clock.after(10, () => (ran = true));
    clock.close();
    clock.advance(100);
    expect(ran).toBe(false);
    expect(() => new Clock(1).advance(1)).toThrow(/manualTime/);
  });
});
