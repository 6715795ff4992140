// Literal addresses a webhook may not target: the delivery contract says the URL "must not resolve
// to a private or reserved address" (01-general-contract.md, "Webhooks (per server)"). Only
// literals and `localhost` can be judged offline; names are resolved by the service.

const IPV4_RESERVED: readonly [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16],
  ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];

function ipv4ToInt(address: string): number | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + Number(p), 0);
}

function ipv4Reserved(address: string): boolean {
  const value = ipv4ToInt(address);
  if (value === undefined) return false;
  return IPV4_RESERVED.some(([base, bits]) => {
    const size = 2 ** (32 - bits);
    return Math.floor(value / size) === Math.floor((ipv4ToInt(base) ?? 0) / size);
  });
}

/** Expands an IPv6 literal (WHATWG-normalised, without brackets) to 8 groups, or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string): string[] => (part === '' ? [] : part.split(':'));
  const head = parse(halves[0] ?? '');
  const tail = parse(halves[1] ?? '');
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  return groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g)) ? groups.map((g) => parseInt(g, 16)) : undefined;
}

function ipv6Reserved(address: string): boolean {
  const g = ipv6Groups(address);
  if (g === undefined) return false;
  const [a = 0, b = 0, , , , f = 0, h6 = 0, h7 = 0] = g;
  const allZeroBefore = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  if (allZeroBefore(7) && (h7 === 0 || h7 === 1)) return true; // :: and ::1
  if (allZeroBefore(5) && f === 0xffff) return ipv4Reserved(`${h6 >> 8}.${h6 & 255}.${h7 >> 8}.${h7 & 255}`);
  if ((a & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((a & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((a & 0xff00) === 0xff00) return true; // multicast ff00::/8
  if (a === 0x2001 && b === 0x0db8) return true; // documentation 2001:db8::/32
  if (a === 0x0064 && b === 0xff9b) return true; // NAT64 64:ff9b::/96 maps IPv4
  return a === 0x0100 && g.slice(1, 4).every((x) => x === 0); // discard-only 100::/64
}

/** Why the URL host is private or reserved, or undefined. `hostname` is from WHATWG `URL`. */
export function privateHostReason(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `\`${hostname}\` is a loopback name`;
  if (host.startsWith('[')) {
    return ipv6Reserved(host.slice(1, -1)) ? `${hostname} is a private or reserved IPv6 address` : undefined;
  }
  return ipv4Reserved(host) ? `${hostname} is a private or reserved IPv4 address` : undefined;
}
