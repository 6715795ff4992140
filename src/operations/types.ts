// The operation registry's vocabulary. Every family file in this folder is pure data of these
// shapes; commands, help, completions, man pages, `gsh reference` and the sandbox's router all
// read it, so an operation is declared exactly once.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a flag's text becomes a JSON value. `string[]` takes a comma list or a repeated flag;
 * `text-file` names a file (or - for stdin) whose text is sent as a string (an init manifest).
 */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'string[]' | 'json' | 'text-file';

/**
 * A rule the client checks before sending (exit 2 instead of a round trip). Only rules the
 * contract states are named here; each is implemented once in src/core/flags/checks.ts.
 */
export type CheckName =
  | 'octal-mode' // `644`, `0755` (files chmod, init files[].mode)
  | 'uuid' // player uuids
  | 'https-url' // webhook urls
  | 'http-url' // pull / asset urls (http or https)
  | 'single-line' // console commands
  | 'absolute-path'; // file paths the contract calls absolute

export interface Field {
  /** The API's name: a query parameter or a top-level body field. */
  name: string;
  type: FieldType;
  /** One line for --help; say what the contract says (defaults, clamps). */
  description: string;
  /** The flag's long name when it must differ from the kebab-case of `name`. */
  flag?: string;
  required?: boolean;
  /** Documented enum values. Unknown values are still sent when `open` is true. */
  choices?: readonly string[];
  /**
   * The text is an init manifest: linted locally before sending, at the tier the body field
   * `tierFrom` names (`free` when it is absent, the stricter caps); `--no-lint` skips it. With
   * the body field `overlayWith` it is an overlay on a saved template, checked by the service.
   */
  manifest?: { tierFrom: string; overlayWith?: string };
  /** The contract allows values outside `choices` (e.g. a game-specific nbt_type). */
  open?: boolean;
  /** Inclusive bounds. `clamp: true` means the server clamps (client only informs); otherwise out of range is a usage error. */
  min?: number;
  max?: number;
  clamp?: boolean;
  /** For `string[]`: at most this many items (usage error beyond). */
  maxItems?: number;
  check?: CheckName;
  /** For `boolean` flags: send this value when the flag is given, nothing otherwise (`--include-status` sends include=status). */
  sends?: string;
  /** Giving this field makes the request destructive (`servers reinstall --wipe`): confirm or --yes. */
  destructive?: boolean;
  /** Documented default, shown in help; never sent unless the user gives the flag. */
  default?: string | number | boolean;
  /**
   * A credential (ARCHITECTURE.md "Auth store": secrets never travel on argv). The runtime must not
   * take its value from a flag's text; it reads it from stdin, a file or the auth store instead.
   */
  secret?: true;
}

export interface PathParam {
  /** As in the path template, e.g. `hook_id` for `{hook_id}`. `server_id` is never listed: it is `-s/--server`. */
  name: string;
  description: string;
  /** A rule checked before sending, as for fields (e.g. `uuid` for player uuids). */
  check?: CheckName;
}

/** How `--wait` follows a 202. */
export type WaitSpec =
  /** A job resource. `poll` is a path template; placeholders come from path params and from the 202 body (`{job_id}`). */
  | { kind: 'job'; poll: string }
  /** The server status resource until `state` settles (power, reinstall, importer). */
  | { kind: 'server-status' }
  /** The init provisioning job at `GET /servers/{server_id}/init`. */
  | { kind: 'init' }
  /**
   * File pulls: `GET /servers/{server_id}/files/pull/status` (active downloads, each with a
   * completion fraction) until the download this request started is no longer listed.
   */
  | { kind: 'pull' }
  /**
   * Server transfers: `GET /servers/{server_id}/settings/transfer/status` (the latest transfer)
   * until it leaves `in_progress` for `completed` (exit 0) or `failed` (exit 1).
   */
  | { kind: 'transfer' }
  /**
   * A backup (document 3 names the family only; its fields and states are not shown): poll
   * `poll` (placeholders from path params and the answer, `{backup_uuid}` from its `uuid` or
   * `id`) until the answer says it finished (core/fleet/wait.ts backupOutcome).
   */
  | { kind: 'backup'; poll: string };

/**
 * Scopes a key needs (01-general-contract.md "Scopes"). The sandbox checks these and help and
 * `gsh reference` print them (access-text.ts), so they are data, not prose.
 */
export type ScopeRule =
  /** The usual case: one scope. */
  | string
  /** Several scopes, all needed (files transfer: read on the source, write on the target). */
  | { allOf: readonly string[] };

/** Permission names per body field or per field value; a name maps to every permission it needs. */
export type PermissionMap = Readonly<Record<string, readonly string[]>>;

/**
 * Server permissions a subuser needs (the owner always passes; 01-general-contract.md "Permission
 * names used by endpoints"). Every part of a rule object applies; a part with nothing to match in
 * the body adds nothing. No operation needs "any of", so there is no such shape.
 */
export type PermissionRule =
  /** The usual case: one permission on every request. */
  | string
  | {
      /** Needed on every request (players migrate apply: file.read and file.update). */
      allOf?: readonly string[];
      /** Needed for each body field the request gives (PATCH settings: each field its own). */
      byField?: PermissionMap;
      /** Needed by the value of one body field (power signal, modpack mode clean, copy-to mode cut). */
      byValue?: { field: string; values: PermissionMap };
      /** Needed on a second server named by a body field, checked there (files transfer target). */
      onServer?: { field: string; allOf: readonly string[] };
    };

/**
 * One endpoint. The required fields name the request; each optional field below `example` is an
 * operation feature, implemented by one module of src/leaf/features/ (ARCHITECTURE.md "Operation
 * features"), which adds its flags, its part of the plan and its part of the run.
 */
export interface Operation {
  method: HttpMethod;
  /** Exactly as in the contract and operations.tsv, e.g. `/servers/{server_id}/files`. */
  path: string;
  /** Command words after `gsh`, e.g. `servers list`, `files trash restore`. Unique across the registry. */
  command: string;
  /** One line, from the contract's wording. */
  summary: string;
  /** A full example invocation, e.g. `gsh servers list --search lobby --all`. */
  example: string;
  /** Extra aliases for the last command word (`ls` for `list` and `rm` for `delete` are added automatically). */
  aliases?: string[];
  /** `none` for unauthenticated helpers (health, docs, discovery). Default: bearer credential. */
  auth?: 'none';
  /** The scope the contract names; omitted where it is not shown. */
  scope?: ScopeRule;
  /** The server permission the contract names; omitted where none or not shown. */
  permission?: PermissionRule;
  /**
   * Path parameters other than server_id, in path order; they become positional arguments.
   * `/<game>/status` counts `game` as a path parameter too.
   */
  params?: PathParam[];
  query?: Field[];
  body?: Field[];
  /**
   * `offset`: limit/offset/pagination; `page`: provider page (1-indexed). The runtime adds the
   * paging flags, so `limit`/`offset`/`page` are not declared in `query` then. One rule: an op
   * whose own `limit` differs from the standard one (default 25, max 100), e.g. files history
   * (clamped 1 to 50), has no `paging` and declares `limit` (and `offset` if it takes one) in
   * `query` with its own min/max/clamp.
   */
  paging?: 'offset' | 'page';
  /** The 202 (or job-returning) result can be followed with --wait. */
  wait?: WaitSpec;
  /**
   * Confirm on a TTY, need --yes otherwise. Set on the contract's destructive operations and on
   * every DELETE, except those that only withdraw access or stop something (subuser removal,
   * support-access revoke, git unlink, advertisement unpublish, module task cancel).
   */
  destructive?: boolean;
  /**
   * The default columns (dot paths into each item) of table, csv and tsv output. Declared by every
   * operation whose answer is a list, and only by those: never guessed from the data.
   */
  columns?: string[];
  /** The path of each list item's identifier, printed by `-q` (default `id`). */
  idField?: string;
  /**
   * A flag that keeps only the list items whose `path` equals its value, one of `choices`; the
   * service cannot filter so, so the query `sends` asks for the field in the same one request
   * (`servers list --state running` sends include=status).
   */
  keep?: { flag: string; path: string; choices: readonly string[]; sends: Readonly<Record<string, string>>; description: string };
  /**
   * `--if-absent`: before creating, list `list` (a path template of the collection) and do
   * nothing when an item's `field` already equals the body's (servers by name, hooks by URL).
   */
  ifAbsent?: { list: string; field: string };
  /** The server is the command's object: it may be named as the last argument as well as with -s (`gsh servers get lobby`). */
  serverArgument?: true;
  /**
   * The answer carries a short-lived signed URL (`url`, with its expiry) to GET the bytes from:
   * the command takes `--to FILE|DIR|-` and `--clobber` and downloads them (core/transfer/download.ts).
   */
  signedUrl?: true;
  /** The response is not JSON (llms.txt, docs redirect, export): print the body as is. */
  raw?: boolean;
  /** The body is sent form-encoded (`application/x-www-form-urlencoded`), not JSON: `/oauth2/token`, `/oauth2/revoke`. */
  form?: true;
  /**
   * One command per value of a body field instead of one command: the power operation's signal
   * gives `power start|stop|restart|kill`. `command` then names the group (`power`).
   */
  verbs?: { field: string; values: readonly string[] };
  /**
   * Verbs whose run may use the console socket as well: `ready` ones take --ready (the wait ends
   * on a console line, leaf/ready.ts), `announce` ones take --announce and --countdown (players are
   * warned with `say` first, leaf/announce.ts).
   */
  console?: { ready?: readonly string[]; announce?: readonly string[] };
}

export interface Family {
  /**
   * The family's id: its file's name and its key in `familyLoaders` (`servers`, `file-trash`).
   * Several families may share a top-level word (`files` holds files, file-tools, file-trash…);
   * `topWords` in index.ts lists which families define commands under each word.
   */
  name: string;
  summary: string;
  operations: Operation[];
}

export const defineFamily = (family: Family): Family => family;
