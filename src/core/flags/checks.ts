import type { CheckName } from '../../operations/types.js';

// Rules the contract states that the client can check before sending (issue: exit 2 instead of a
// round trip). Each returns a problem description, or undefined when the value passes.

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

export const CHECKS: Record<CheckName, (value: string) => string | undefined> = {
  // 03-endpoints-part-b.md "File tools": octal mode strings such as 644, 0755.
  'octal-mode': (v) => (/^0?[0-7]{3}$/.test(v) ? undefined : 'must be an octal mode such as 644 or 0755'),
  // 03-endpoints-part-b.md "Players": 400 invalid UUID.
  uuid: (v) => (UUID_RE.test(v) ? undefined : 'must be a UUID'),
  // 01-general-contract.md "Webhooks": URL must be https.
  'https-url': (v) => (parseUrl(v)?.protocol === 'https:' ? undefined : 'must be an https:// URL'),
  'http-url': (v) => (['http:', 'https:'].includes(parseUrl(v)?.protocol ?? '') ? undefined : 'must be an http(s):// URL'),
  // 02-endpoints-part-a.md "Console": one single-line command, no batches.
  'single-line': (v) => (/[\r\n]/.test(v) ? 'must be a single line (no batches)' : v.trim() === '' ? 'must not be empty' : undefined),
  'absolute-path': (v) => (v.startsWith('/') ? undefined : 'must be an absolute path starting with /'),
};

function parseUrl(v: string): URL | undefined {
  try {
    return new URL(v);
  } catch {
    return undefined;
  }
}

/**
 * Any id that goes into a path: empty, `null` or `undefined` is what a script gets when its id
 * lookup found nothing (`--jq .uuid` on a record whose id is named otherwise), and a `/` would
 * name another resource, as would `.` or `..`, which a URL reads as a step to the same or the
 * parent path (`hooks delete ..` would send DELETE /servers/{id}/); each is refused before
 * anything is sent rather than sent as an id. `allowSlash`: a value that never goes into a path
 * as it is (a server name, resolved to an id first; a file path sent in the query).
 */
export function pathIdProblem(value: string, allowSlash = false): string | undefined {
  if (value.trim() === '') return 'must not be empty';
  if (/^(null|undefined)$/i.test(value.trim())) return `is "${value}", not an id: the command that gave it found none (-q prints the id whatever its name)`;
  if (allowSlash) return undefined;
  if (value.includes('/')) return 'must not contain /';
  return dotSegmentProblem(value);
}

/** `.` and `..` as one step of a URL path name the same or the parent path, never an id. */
function dotSegmentProblem(value: string): string | undefined {
  return value === '.' || value === '..' ? `must not be "${value}": in a URL it names the ${value === '.' ? 'same' : 'parent'} path, not an id` : undefined;
}
