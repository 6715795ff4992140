import { createHmac, timingSafeEqual } from 'node:crypto';

// Webhook signatures (01-general-contract.md "Webhooks (per server)"): X-Service-Signature is
// `sha256=` followed by the hex HMAC-SHA256 of the exact raw body under the hook's secret, to be
// checked over the raw bytes with a constant-time comparison.

export const SIGNATURE_HEADER = 'X-Service-Signature';

export type Verdict = { valid: true } | { valid: false; reason: string };

const FORM = /^sha256=([0-9a-f]{64})$/i;

/** Whether `signature` is the body's HMAC under `secret`; the digests are compared in constant time. */
export function verifySignature(secret: string | Buffer, body: Buffer, signature: string): Verdict {
  const value = signature.trim();
  if (value === '') return { valid: false, reason: 'the signature is empty (an unsigned delivery)' };
  const hex = FORM.exec(value)?.[1];
  if (!hex) return { valid: false, reason: 'the signature is malformed: expected sha256= and 64 hex digits' };
  const expected = createHmac('sha256', secret).update(body).digest();
  // Both are 32 bytes here, as timingSafeEqual requires.
  if (!timingSafeEqual(Buffer.from(hex, 'hex'), expected)) {
    return { valid: false, reason: 'the signature does not match the body under this secret (a changed body or another secret)' };
  }
  return { valid: true };
}

/** The value of an `X-Service-Signature: …` header line (any case), or undefined for another header. */
export function signatureFromHeader(line: string): string | undefined {
  const colon = line.indexOf(':');
  if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== SIGNATURE_HEADER.toLowerCase()) return undefined;
  return line.slice(colon + 1).trim();
}
