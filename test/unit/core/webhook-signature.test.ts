import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

// 01-general-contract.md "Webhooks (per server)": the signature is checked over the raw bytes
// with a constant-time comparison. Time is not measured here (no timed assertions); what is
// checked is that every verdict on a well-formed signature comes from crypto.timingSafeEqual over
// two 32-byte digests, never from a string or early-exit comparison.

const compared = vi.hoisted(() => [] as [Buffer, Buffer][]);
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      compared.push([Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)]);
      return real.timingSafeEqual(a, b);
    },
  };
});

// Files in one worker share loaded modules (vitest.config.ts isolate: false): load the check afresh, on the mock.
vi.resetModules();
const { verifySignature } = await import('../../../src/core/webhook-signature.js');

describe('webhook signature check', () => {
  it('compares in constant time: timingSafeEqual over 32-byte digests, for a match and for a mismatch early or late', () => {
    const body = Buffer.from('{"event":"server.started"}');
    const good = createHmac('sha256', 'whsec_test').update(body).digest('hex');
    const flip = (hex: string, at: number) => hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);
    compared.length = 0;
    expect(verifySignature('whsec_test', body, `sha256=${good}`)).toEqual({ valid: true });
    expect(verifySignature('whsec_test', body, `sha256=${flip(good, 0)}`).valid).toBe(false);
    expect(verifySignature('whsec_test', body, `sha256=${flip(good, 63)}`).valid).toBe(false);
    expect(compared).toHaveLength(3);
    for (const [a, b] of compared) expect([a.length, b.length]).toEqual([32, 32]);
  });
});
