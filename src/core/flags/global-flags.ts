import { COLOR_WHEN } from '../terminal/io.js';
import { FORMATS } from '../terminal/output.js';

// The one table of global flags: commander's program options (src/program.ts), the Globals type
// every action reads (src/core/run/runtime.ts), the word finder's value flags (src/core/flags/argv.ts) and
// the names a registry field must not shadow (src/commands/registry-commands.ts) all come from
// it; the docs read the commander tree. A new global flag is one row here.

export interface GlobalFlag {
  /** The long name without `--`; `no-x` is commander's negation, which sets `x` false. */
  readonly long: string;
  readonly short?: string;
  /** The placeholder of the value it takes (`--profile <name>`); none for a switch. */
  readonly value?: string;
  readonly choices?: readonly string[];
  readonly description: string;
  /** Commander's own --version: printed and exited on, never an option value. */
  readonly version?: true;
}

/** In the order --help lists them. */
export const GLOBAL_FLAG_TABLE = [
  { long: 'version', short: 'V', description: 'print the version', version: true },
  { long: 'profile', value: 'name', description: 'auth profile to use (default: $GSH_PROFILE or the current one)' },
  { long: 'base-url', value: 'url', description: 'service root, ending in /api/v2 (default: $GSH_BASE_URL or the profile)' },
  { long: 'output', short: 'o', value: 'format', choices: FORMATS, description: 'output format' },
  { long: 'jq', value: 'expr', description: 'filter the whole result (every page with --all) through a jq expression; strings print raw' },
  { long: 'columns', value: 'paths', description: 'comma-separated field paths for -o table, csv and tsv (e.g. id,name,status.state)' },
  { long: 'no-header', description: 'leave out the header row of -o table, csv and tsv' },
  { long: 'json', description: 'same as -o json' },
  { long: 'color', value: 'when', choices: COLOR_WHEN, description: 'colour: auto (a terminal, NO_COLOR, CLICOLOR_FORCE, FORCE_COLOR), always or never' },
  { long: 'no-color', description: 'same as --color never' },
  { long: 'debug', description: 'trace requests and responses on stderr (secrets redacted)' },
  { long: 'show-secret', description: 'print secrets the service answers with (a webhook signing secret, a manifest hook\'s secret) instead of [set] or [hidden]' },
  { long: 'yes', short: 'y', description: 'confirm destructive operations without asking' },
  { long: 'no-input', description: 'never prompt; fail where a person would be asked' },
  { long: 'idempotency-key', value: 'key', description: 'Idempotency-Key for the mutation (default: a fresh UUID per request)' },
  { long: 'retries', value: 'n', description: 'retries on 429, 5xx and dropped connections (default 4)' },
  { long: 'timeout', value: 'duration', description: 'limit on waiting (--wait, --expect), e.g. 90s or 10m (default 10m)' },
  { long: 'request-timeout', value: 'duration', description: 'limit on each request attempt as a whole: connect, send, the answer and its body (default 30s; also GSH_REQUEST_TIMEOUT)' },
  { long: 'dry-run', description: 'print the requests the command would send, and what would follow, then stop; sends nothing but server-name lookups' },
] as const satisfies readonly GlobalFlag[];

type Row = (typeof GLOBAL_FLAG_TABLE)[number];

/** Commander's flags string, e.g. `-o, --output <format>`. */
export function flagsOf(f: GlobalFlag): string {
  return `${f.short ? `-${f.short}, ` : ''}--${f.long}${f.value ? ` <${f.value}>` : ''}`;
}

/** Global flags followed by a value word (`--profile p`, `-o json`): argv's word finder skips it. */
export const VALUE_FLAGS: ReadonlySet<string> = new Set(
  GLOBAL_FLAG_TABLE.flatMap((f: GlobalFlag) => (f.value ? [`--${f.long}`, ...(f.short ? [`-${f.short}`] : [])] : [])),
);

/** Every long name a command inherits from the program (both halves of a negation, and help). */
export const GLOBAL_FLAG_NAMES: ReadonlySet<string> = new Set([
  'help',
  ...GLOBAL_FLAG_TABLE.flatMap((f: GlobalFlag) => (f.long.startsWith('no-') ? [f.long, f.long.slice(3)] : [f.long])),
]);

// The Globals type, as commander stores the options: `base-url` as baseUrl, a value as a string,
// a switch as a boolean, `no-x` as x (false when given; alone it is a boolean defaulting to true,
// beside `--x <value>` it adds false to the value's type).
type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S;
type Positive<L extends string> = L extends `no-${infer R}` ? R : L;
type KeyOf<R extends Row> = Camel<Positive<R['long']>>;
type PositiveKeys = KeyOf<Exclude<Row, { long: `no-${string}` }>>;
type ValueOf<R extends Row> = R extends { value: string }
  ? string
  : R extends { long: `no-${string}` }
    ? KeyOf<R> extends PositiveKeys ? false : boolean
    : boolean;

/** The program's options as every action reads them (`rootOf(cmd).opts<Globals>()`). */
export type Globals = { -readonly [R in Row as R extends { version: true } ? never : KeyOf<R>]?: ValueOf<R> };
