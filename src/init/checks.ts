// Value checks named by the schema (`check:` in manifest-schema.ts). Each returns the findings for
// one string value; the walker places them at the value.

import { privateHostReason } from './addresses.js';
import { cronProblem } from './cron.js';
import type { RuleId } from './rules.js';
import type { CheckName } from './schema-types.js';
import { didYouMean } from './suggest.js';
import { EVENT_TYPES, PERMISSIONS } from './vocabulary.js';

export interface Finding {
  rule: RuleId;
  message: string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Base64 with line breaks and spaces removed (block scalars wrap long values). */
export function compactBase64(value: string): string {
  return value.replace(/\s+/g, '');
}

export function isBase64(value: string): boolean {
  return BASE64.test(compactBase64(value));
}

/** Size in bytes of what valid base64 decodes to. */
export function decodedBase64Size(value: string): number {
  const compact = compactBase64(value);
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return (compact.length / 4) * 3 - padding;
}

function base64(value: string): Finding[] {
  if (isBase64(value)) return [];
  const compact = compactBase64(value);
  const bad = /[^A-Za-z0-9+/=]/.exec(compact);
  const why = bad
    ? `contains \`${bad[0]}\`, which is not in the base64 alphabet${/[-_]/.test(bad[0]) ? ' (base64url is not accepted)' : ''}`
    : 'has the wrong length or padding (base64 comes in groups of 4 characters, padded with `=`)';
  return [{ rule: 'base64', message: `content_base64 ${why}` }];
}

function hex(name: string, digits: number) {
  const exact = new RegExp(`^[0-9a-fA-F]{${digits}}$`);
  return (value: string): Finding[] => {
    if (exact.test(value)) return [];
    const why = /^[0-9a-fA-F]*$/.test(value)
      ? `has ${value.length} hex digits`
      : 'contains characters that are not hex digits';
    return [{ rule: 'checksum', message: `${name} must be ${digits} hex digits; this one ${why}` }];
  };
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function downloadUrl(value: string): Finding[] {
  const url = parseUrl(value);
  if (url === undefined) return [{ rule: 'url', message: `\`${value}\` is not an absolute URL` }];
  if (url.protocol === 'http:') {
    return [{ rule: 'insecure-url', message: 'download over plain http; use https (and a checksum) so it cannot be tampered with' }];
  }
  if (url.protocol !== 'https:') return [{ rule: 'url', message: `\`${url.protocol}\` URLs cannot be downloaded; use https` }];
  return [];
}

function hookUrl(value: string): Finding[] {
  const url = parseUrl(value);
  if (url === undefined) return [{ rule: 'url', message: `\`${value}\` is not an absolute URL` }];
  const findings: Finding[] = [];
  if (url.protocol !== 'https:') {
    findings.push({ rule: 'hook-https', message: `hook URLs must be https, not \`${url.protocol.slice(0, -1)}\`` });
  }
  const reason = privateHostReason(url.hostname);
  if (reason !== undefined) {
    findings.push({ rule: 'private-address', message: `hook URLs must not resolve to a private or reserved address: ${reason}` });
  }
  return findings;
}

function fileMode(value: string): Finding[] {
  return /^[0-7]{3,4}$/.test(value)
    ? []
    : [{ rule: 'file-mode', message: `mode \`${value}\` is not an octal string like '0644' (3 or 4 digits 0-7)` }];
}

function event(value: string): Finding[] {
  return (EVENT_TYPES as readonly string[]).includes(value)
    ? []
    : [{ rule: 'event-name', message: `\`${value}\` is not a webhook event type${didYouMean(value, EVENT_TYPES)}` }];
}

function permission(value: string): Finding[] {
  return (PERMISSIONS as readonly string[]).includes(value)
    ? []
    : [{ rule: 'unknown-permission', message: `\`${value}\` is not a permission the contract names${didYouMean(value, PERMISSIONS)}` }];
}

function email(value: string): Finding[] {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)
    ? []
    : [{ rule: 'email', message: `\`${value}\` does not look like an e-mail address` }];
}

function filePath(value: string): Finding[] {
  return value.split(/[\\/]/).includes('..')
    ? [{ rule: 'path-traversal', message: `path \`${value}\` climbs out with \`..\`; the service may refuse it` }]
    : [];
}

function cron(value: string): Finding[] {
  const problem = cronProblem(value);
  return problem === undefined ? [] : [{ rule: 'cron', message: problem }];
}

export const CHECKS: Record<CheckName, (value: string) => Finding[]> = {
  cron,
  event,
  permission,
  'hook-url': hookUrl,
  'download-url': downloadUrl,
  'file-mode': fileMode,
  base64,
  sha1: hex('sha1', 40),
  sha256: hex('sha256', 64),
  sha512: hex('sha512', 128),
  email,
  'file-path': filePath,
};

/** `env` keys that shells and most programs accept. */
export function envNameProblem(key: string): Finding[] {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? []
    : [{ rule: 'env-name', message: `\`${key}\` is not a portable environment variable name (letters, digits, _; not starting with a digit)` }];
}
