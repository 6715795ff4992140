import type { ServerView } from './state.js';

// `gsh top` for scripts (not a terminal, or --once): the rows of the screen as records for the
// output layer (core/terminal/output.ts), so every format, --columns, --jq and -q work as in any list.
// Every field is present in every record: a value the service did not send is null (never a
// zero), so --columns never finds a column missing from a snapshot where no server reported it.

export const DEFAULT_COLUMNS = ['id', 'name', 'state', 'cpu_absolute', 'memory_bytes', 'memory_limit_bytes', 'disk_bytes', 'rx_bytes_per_second', 'tx_bytes_per_second', 'uptime'] as const;

export interface TopRecord {
  id: string;
  name: string;
  /** The status's state; null when the list carried no status for the server (see status_visible). */
  state: string | null;
  /** false: the key's user may not see this server's status (not the same as offline). */
  status_visible: boolean;
  /** node_ready as the service sent it (false: the node is not reachable); null when not sent. */
  node_ready: boolean | null;
  cpu_absolute: number | null;
  memory_bytes: number | null;
  memory_limit_bytes: number | null;
  disk_bytes: number | null;
  /** From the network counters of two refreshes: null in the first snapshot. */
  rx_bytes_per_second: number | null;
  tx_bytes_per_second: number | null;
  uptime: number | null;
  /** When this refresh was read (ISO 8601, seconds). */
  sampled_at: string;
}

const orNull = (v: number | undefined): number | null => (v === undefined ? null : Math.round(v * 10) / 10);

export function recordOf(s: ServerView): TopRecord {
  return {
    id: s.id,
    name: s.name,
    state: s.visible ? (s.state ?? null) : null,
    status_visible: s.visible,
    node_ready: s.nodeReady ?? null,
    cpu_absolute: s.cpu ?? null,
    memory_bytes: s.memory ?? null,
    memory_limit_bytes: s.memoryLimit ?? null,
    disk_bytes: s.disk ?? null,
    rx_bytes_per_second: orNull(s.rx),
    tx_bytes_per_second: orNull(s.tx),
    uptime: s.uptime ?? null,
    sampled_at: new Date(s.at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}
