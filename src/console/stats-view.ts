// `gsh console stats`: the `stats` payload (01-general-contract.md "Console socket": keys
// memory_bytes, memory_limit_bytes, cpu_absolute, network {rx_bytes, tx_bytes}, uptime, state,
// disk_bytes) as one line for a live view.

export interface Stats {
  memory_bytes?: number;
  memory_limit_bytes?: number;
  cpu_absolute?: number;
  network?: { rx_bytes?: number; tx_bytes?: number };
  uptime?: number;
  state?: string;
  disk_bytes?: number;
  [k: string]: unknown;
}

export function parseStats(arg: string | undefined): Stats | undefined {
  try {
    const v = JSON.parse(arg ?? '') as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Stats) : undefined;
  } catch {
    return undefined;
  }
}

export function bytes(n: number | undefined): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** Uptime in seconds (as the status resource reports it): 45s, 12m05s, 3h04m, 2d07h. */
export function duration(seconds: number | undefined): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return '-';
  let s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86_400);
  s -= d * 86_400;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d}d${String(h).padStart(2, '0')}h`;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

export function statsLine(s: Stats): string {
  const mem = `${bytes(s.memory_bytes)} / ${bytes(s.memory_limit_bytes)}`;
  const cpu = typeof s.cpu_absolute === 'number' ? `${s.cpu_absolute.toFixed(1)}%` : '-';
  return [
    s.state ?? '-',
    `cpu ${cpu}`,
    `mem ${mem}`,
    `disk ${bytes(s.disk_bytes)}`,
    `net rx ${bytes(s.network?.rx_bytes)} tx ${bytes(s.network?.tx_bytes)}`,
    `up ${duration(s.uptime)}`,
  ].join('  ');
}
