// Hostile mode (`gsh sandbox start --hostile`, `startSandbox({ hostile: true })`; issue #44): a
// service that tries to take over the terminal gsh shows its text on. Every string a person reads
// in an answer (names, descriptions, messages, URLs shown to a person such as `action_url`, error
// messages and field errors) and every console line carries HOSTILE (or HOSTILE_BARE_CR): CSI (SGR conceal, blink,
// cursor moves, screen clear), OSC 0 (title), OSC 8 (a link), OSC 52 (clipboard), DCS, C1 CSI,
// bidi overrides and isolates, zero-width characters, wide East-Asian characters, an emoji, CR,
// LF and TAB. Applied when an answer is sent, like strict mode (strict.ts); the stored state stays
// clean, so the admin API and the tests read it as before.
//
// What gsh reads as a machine value keeps its bytes, or a client could not even follow the
// answer: identifiers (`id`, `uuid`, `*_id`, `*_uuid`, `object`), error `code`s, the states and
// statuses it follows (`state`, `status`, `lifecycle_status`), timestamps (`*_at`), secrets and
// tokens, and the URLs it sends requests to (`status_url`, signed download and upload URLs,
// sockets). Their text still reaches a terminal only through the same door, so they are covered
// by that door's unit tests rather than here.
//
// `hostile: { states: true }` makes the states and statuses hostile too (`state`, `status`,
// `lifecycle_status` and the console's `status` event): for surfaces that only show them (`gsh
// top`'s STATE column and header counts). gsh cannot follow such a service (`--wait` never sees
// `running`), so the plain hostile mode leaves them alone.

/** What every hostile string ends with (the original text first, so it is still recognisable). */
export const HOSTILE =
  '\x1b[8m\x1b[5m<hidden>\x1b[2J\x1b[1;1H\x1b]0;pwned title\x07\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07' +
  '\x1b]52;c;ZWNobyBwd25lZA==\x07\x1bP+q544e\x1b\\\u009b2J\u009d0;c1 title\u009c\u202eexe.txt\u2066\u200b\u200d\ufeff' +
  '宽字符ｗｉｄｅ👨\u200d👩\u200d👧\rCR\nLF\tTAB';

/**
 * HOSTILE without its LF: a bare CR is what a CSV writer forgets to quote (a field with a LF is
 * quoted anyway). Every other string gets it, chosen by the string, so a list holds both.
 */
export const HOSTILE_BARE_CR = HOSTILE.replace('\nLF', '');

function payload(text: string): string {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
  return sum % 2 === 0 ? HOSTILE : HOSTILE_BARE_CR;
}

const MACHINE_KEY = /^(id|uuid|object|code|state|status|lifecycle_status|type|token|access_token|refresh_token|assertion|secret|key|api_key|signature|checksum|sha256|hash|url|download_url|upload_url|status_url|socket|socket_url|websocket|websocket_url|ws_url|idempotency_key|grant_type|token_type|scope|scopes|permission|permissions|request_id|cursor|next|previous|ip|ip_address|host|port)$|_(id|uuid|at|url|token|key|ids)$/;
/** URLs a person opens: hostile even though the key ends in `_url`. */
const PERSON_URL = /^(action_url|checkout_url|payment_url|top_up_url|topup_url|invoice_url|claim_url|verification_uri|verification_uri_complete|doc_url|docs_url)$/;

/** A plain JSON object (not a Buffer, a stream or a file being sent). */
function isObj(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The keys `{ states: true }` makes hostile as well. */
const STATE_KEY = /^(state|status|lifecycle_status)$/;

/** What a hostile sandbox makes hostile beyond person-readable text. */
export interface HostileOptions {
  /** States and statuses too (see above). */
  states?: boolean;
}

/** A value with every person-readable string made hostile; `key` is the field it is held in. */
export function hostileValue(value: unknown, key = '', opts: HostileOptions = {}): unknown {
  if (typeof value === 'string') {
    const machine = MACHINE_KEY.test(key) && !PERSON_URL.test(key) && !(opts.states === true && STATE_KEY.test(key));
    return value === '' || machine ? value : `${value}${payload(value)}`;
  }
  if (Array.isArray(value)) return value.map((v) => hostileValue(v, key, opts));
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hostileValue(v, k, opts)]));
  return value;
}

/** The answer a hostile sandbox sends instead of `body` (an envelope, an error, a document). */
export function hostileBody(body: unknown, opts: HostileOptions = {}): unknown {
  return isObj(body) || Array.isArray(body) ? hostileValue(body, '', opts) : body;
}

/**
 * The arguments of a console socket event as a hostile node sends them: console lines and the
 * node's error messages carry HOSTILE; `history output` (a JSON page) has its lines so treated;
 * states (unless `opts.states`), stats and token events keep theirs.
 */
export function hostileConsoleArgs(event: string, args: readonly string[], opts: HostileOptions = {}): string[] {
  if (event === 'console output' || event === 'daemon error' || event === 'jwt error') return args.map((a) => `${a}${payload(a)}`);
  if (event === 'status' && opts.states === true) return args.map((a) => `${a}${payload(a)}`);
  if (event === 'history output') {
    try {
      return args.map((a) => JSON.stringify(hostileHistory(JSON.parse(a) as unknown)));
    } catch {
      return [...args];
    }
  }
  return [...args];
}

function hostileHistory(page: unknown): unknown {
  if (Array.isArray(page)) return page.map((l) => (typeof l === 'string' ? `${l}${payload(l)}` : isObj(l) ? hostileLine(l) : l));
  if (isObj(page)) return Object.fromEntries(Object.entries(page).map(([k, v]) => [k, Array.isArray(v) ? hostileHistory(v) : v]));
  return page;
}

function hostileLine(line: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(line).map(([k, v]) => [k, typeof v === 'string' && (k === 'line' || k === 'text' || k === 'message') ? `${v}${payload(v)}` : v]));
}
