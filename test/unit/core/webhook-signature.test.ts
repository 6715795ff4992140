import crypto, { createHmac } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src/core/wire/webhook-signature.js';

// 01-general-contract.md "Webhooks (per server)": the signature is checked over the raw bytes
// with a constant-time comparison. Time is not measured here (no timed assertions); what is
// checked is that every verdict on a well-formed signature comes from crypto.timingSafeEqual over
// two 32-byte digests, never from a string or early-exit comparison. The builtin is wrapped for
// this file's tests only (syncBuiltinESMExports carries it to named imports) and put back after.

const real = crypto.timingSafeEqual;
const compared: [number, number][] = [];
beforeEach(() => {
  compared.length = 0;
  crypto.timingSafeEqual = (a, b) => {
    compared.push([a.byteLength, b.byteLength]);
    return real(a, b);
  };
  syncBuiltinESMExports();
});
afterEach(() => {
  crypto.timingSafeEqual = real;
  syncBuiltinESMExports();
});

describe('webhook signature check', () => {
  it('compares in constant time: timingSafeEqual over 32-byte digests, for a match and for a mismatch early or late', () => {
    const body = Buffer.from('{"event":"server.started"}');
    const good = createHmac('sha256', 'whsec_test').update(body).digest('hex');
    const flip = (hex: string, at: number) => hex.slice(0, at) + (hex[at] === '0' ? '1' : '0') + hex.slice(at + 1);
    expect(verifySignature('whsec_test', body, `sha256=${good}`)).toEqual({ valid: true });
    expect(verifySignature('whsec_test', body, `sha256=${flip(good, 0)}`).valid).toBe(false);
    expect(verifySignature('whsec_test', body, `sha256=${flip(good, 63)}`).valid).toBe(false);
    expect(compared).toEqual([[32, 32], [32, 32], [32, 32]]);
  });
});
