// What one refresh of `gsh top` knows about each server, read from GET /servers?include=status
// (02-endpoints-part-a.md "Servers": include=status "adds live state and usage … only for servers
// whose console the key's user may access"). The contract names the status's `state` and
// `node_ready` (01-general-contract.md "Resource table", "Server status") and says usage is there
// "when the node is reachable", without naming the usage fields; gsh reads them under the names the
// console socket's `stats` event gives them (01 "Console socket": memory_bytes,
// memory_limit_bytes, cpu_absolute, network {rx_bytes, tx_bytes}, uptime, disk_bytes). A value
// that is absent, or not a number, stays absent: it is shown as `–`, never made up.

/** Usage numbers, each absent when the service did not send it. */
export interface Usage {
  cpu?: number;
  memory?: number;
  memoryLimit?: number;
  disk?: number;
  /** Network counters (bytes since the server started): rates come from two samples. */
  rxTotal?: number;
  txTotal?: number;
  uptime?: number;
}

export interface Sample extends Usage {
  id: string;
  name: string;
  /**
   * false: the list carried no status for this server (the key's user may not open its console):
   * its state is unknown to gsh, which is not the same as offline.
   */
  visible: boolean;
  /** The status's `state` word as sent (unknown words kept); absent when not visible or not sent. */
  state?: string;
  /** `node_ready` as sent; false: the node is not reachable, so `state: offline` says nothing about the server. */
  nodeReady?: boolean;
  /** The run's clock when the sample was read. */
  at: number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The usage numbers of a status record or a `stats` payload (the same names, see above). */
export function usageOf(status: Record<string, unknown>): Usage {
  const network = isObj(status.network) ? status.network : {};
  const u: Usage = {
    cpu: num(status.cpu_absolute),
    memory: num(status.memory_bytes),
    memoryLimit: num(status.memory_limit_bytes),
    disk: num(status.disk_bytes),
    rxTotal: num(network.rx_bytes),
    txTotal: num(network.tx_bytes),
    uptime: num(status.uptime),
  };
  for (const k of Object.keys(u) as (keyof Usage)[]) if (u[k] === undefined) delete u[k];
  return u;
}

/** One list item as a sample; undefined for an item with no id (nothing to show it by). */
export function sampleOf(item: unknown, at: number): Sample | undefined {
  if (!isObj(item)) return undefined;
  const id = typeof item.id === 'string' || typeof item.id === 'number' ? String(item.id) : undefined;
  if (id === undefined) return undefined;
  const name = typeof item.name === 'string' ? item.name : id;
  const status = item.status;
  if (!isObj(status)) return { id, name, visible: false, at };
  return {
    id,
    name,
    visible: true,
    ...(typeof status.state === 'string' ? { state: status.state } : {}),
    ...(typeof status.node_ready === 'boolean' ? { nodeReady: status.node_ready } : {}),
    ...usageOf(status),
    at,
  };
}

/** Bytes a second between two readings of a counter; absent without both, or when it went back (a restart). */
export function rate(before: number | undefined, after: number | undefined, seconds: number): number | undefined {
  if (before === undefined || after === undefined || !(seconds > 0) || after < before) return undefined;
  return (after - before) / seconds;
}
