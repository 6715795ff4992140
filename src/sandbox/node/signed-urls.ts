import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SandboxContext } from '../context.js';
import { isoSeconds } from '../clock.js';
import { familyState } from './slots.js';

// Short-lived signed node URLs (03-endpoints-part-b.md "File transfers": files/upload and
// files/download return them; anyone holding one may use it until it expires). They point at the
// sandbox itself under /__node, outside /api/v2, and carry no bearer credential: the signature
// (HMAC-SHA256 over action, server, path and expiry) is the authorization.

export const NODE_PREFIX = '/__node';

/** `archive`: a generated .tar.gz (worlds, backups, database backups; node/archives.ts). */
export type NodeAction = 'upload' | 'download' | 'archive';

export interface SignedTarget {
  action: NodeAction;
  server: string;
  /** File path for downloads, archive id for archives; empty for uploads (the client appends `directory`). */
  path: string;
  /** Unix ms. */
  expires: number;
}

function signature(secret: Buffer, t: SignedTarget): string {
  return createHmac('sha256', secret).update(`${t.action}\n${t.server}\n${t.path}\n${t.expires}`).digest('hex');
}

export function signUrl(ctx: SandboxContext, action: NodeAction, server: string, path = ''): { url: string; expires_at: string } {
  const st = familyState(ctx);
  const target: SignedTarget = { action, server, path, expires: Date.now() + st.signedUrlTtlMs };
  const q = new URLSearchParams({ server, ...(path ? { path } : {}), expires: String(target.expires), signature: signature(st.urlSecret, target) });
  return { url: `${ctx.origin}${NODE_PREFIX}/${action}?${q}`, expires_at: isoSeconds(target.expires) };
}

export type Verdict = { ok: true; target: SignedTarget } | { ok: false; status: 403 | 410; reason: string };

export function verifyUrl(ctx: SandboxContext, action: NodeAction, q: URLSearchParams): Verdict {
  const expires = Number(q.get('expires'));
  const target: SignedTarget = { action, server: q.get('server') ?? '', path: q.get('path') ?? '', expires };
  const given = Buffer.from(q.get('signature') ?? '', 'utf8');
  const wanted = Buffer.from(signature(familyState(ctx).urlSecret, target), 'utf8');
  if (!Number.isFinite(expires) || given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
    return { ok: false, status: 403, reason: 'invalid signature' };
  }
  if (Date.now() > expires) return { ok: false, status: 410, reason: 'the signed URL has expired' };
  return { ok: true, target };
}
