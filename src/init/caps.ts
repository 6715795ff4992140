// Per-plan caps of the init manifest (01-general-contract.md, "Caps by plan"). Caps are data: the
// linter and the JSON Schema read this table and never branch on the tier themselves.

export const TIERS = ['free', 'paid'] as const;
export type Tier = (typeof TIERS)[number];

/** Templates are validated at paid caps on save, so that is the default tier. */
export const DEFAULT_TIER: Tier = 'paid';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export interface Cap {
  /** How the limit reads in messages, e.g. "`files` entries". */
  readonly label: string;
  readonly unit: 'entries' | 'bytes';
  readonly free: number;
  readonly paid: number;
}

export const CAPS = {
  pluginsAndMods: { label: 'plugins + mods entries', unit: 'entries', free: 25, paid: 100 },
  singleDownload: { label: 'single download size', unit: 'bytes', free: 200 * MiB, paid: 2 * GiB },
  envKeys: { label: '`env` keys', unit: 'entries', free: 32, paid: 128 },
  files: { label: '`files` entries', unit: 'entries', free: 15, paid: 50 },
  singleFile: { label: 'single file size', unit: 'bytes', free: 64 * KiB, paid: 128 * KiB },
  allFiles: { label: 'size of all files', unit: 'bytes', free: 256 * KiB, paid: 1 * MiB },
  assets: { label: '`assets` entries', unit: 'entries', free: 3, paid: 10 },
  assetsTotal: { label: 'total size of assets', unit: 'bytes', free: 500 * MiB, paid: 5 * GiB },
  runCommands: { label: '`run` commands', unit: 'entries', free: 10, paid: 30 },
  schedules: { label: '`schedules`', unit: 'entries', free: 2, paid: 20 },
  hooks: { label: '`hooks`', unit: 'entries', free: 1, paid: 5 },
  access: { label: '`access` grants', unit: 'entries', free: 1, paid: 10 },
} as const satisfies Record<string, Cap>;

export type CapName = keyof typeof CAPS;

export function capValue(name: CapName, tier: Tier): number {
  return CAPS[name][tier];
}

/**
 * "at most 48 KB" (01-general-contract.md, "Init manifest"). The contract writes KiB and MiB where
 * it means powers of two, so KB is read as 1000 bytes. It is also the safe reading: a manifest
 * that passes here passes under the 1024 reading too.
 */
export const DOCUMENT_LIMIT_BYTES = 48_000;

/** "up to 5 `tasks`" per schedule; the same on every plan. */
export const MAX_TASKS_PER_SCHEDULE = 5;

/** `run.timeout`: "default 120, max 900 seconds". */
export const RUN_TIMEOUT_MAX_SECONDS = 900;

export function formatBytes(bytes: number): string {
  if (bytes >= GiB && bytes % GiB === 0) return `${bytes / GiB} GiB`;
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= KiB && bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes.toLocaleString('en-US')} bytes`;
}

export function formatCap(name: CapName, tier: Tier): string {
  const cap = CAPS[name];
  const value = cap[tier];
  return cap.unit === 'bytes' ? formatBytes(value) : String(value);
}
