// The console socket's frames (01-general-contract.md "Console socket"): JSON text objects with
// `event` and `args` (strings; may be omitted when empty), in both directions.

import { fromService, type ServiceText } from '../core/terminal/terminal-text.js';

export interface Frame {
  event: string;
  /** What the node sent: the service's text, shown only through the terminal door (core/terminal/terminal-text.ts). */
  args?: ServiceText[];
}

/** The API's console session (Resource table: "Console session"). */
export interface ConsoleSessionInfo {
  socket: string;
  token: string;
  permissions?: string[];
}

/** Reply to `send history`. */
export interface HistoryPage {
  data: ServiceText[];
  cursor?: string;
  has_more: boolean;
}

/** Inbound text frames are capped at 64 KiB ("Limits": socket frames). */
export const MAX_OUTBOUND_FRAME = 64 * 1024;

export const SKIPPED_LINE = /^(\d+) console lines skipped \(slow connection\)$/;

export function encodeFrame(event: string, args: readonly string[] = []): string {
  return JSON.stringify(args.length ? { event, args } : { event });
}

/** A frame, or undefined for anything that is not one (ignored, as unknown input must be). */
export function decodeFrame(text: string): Frame | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || typeof (v as Frame).event !== 'string') return undefined;
  const raw = (v as { args?: unknown }).args;
  const args = Array.isArray(raw) ? raw.map((a) => fromService(typeof a === 'string' ? a : JSON.stringify(a))) : [];
  return args.length ? { event: (v as Frame).event, args } : { event: (v as Frame).event };
}

/** `jwt error` reasons that mean "renew and authenticate again" rather than "refused". */
export function isExpiryReason(reason: string | undefined): boolean {
  return /expir/i.test(reason ?? '');
}

export function parseHistory(arg: string | undefined): HistoryPage | undefined {
  try {
    const v = JSON.parse(arg ?? '') as Partial<HistoryPage>;
    if (!v || !Array.isArray(v.data)) return undefined;
    return {
      data: v.data.map((l) => fromService(String(l))),
      ...(v.cursor !== undefined && v.cursor !== null && v.cursor !== '' ? { cursor: String(v.cursor) } : {}),
      has_more: v.has_more === true,
    };
  } catch {
    return undefined;
  }
}
