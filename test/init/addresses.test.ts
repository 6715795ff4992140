import { describe, expect, it } from 'vitest';
import { privateHostReason } from '../../src/init/addresses.js';

// Hook URLs "must not resolve to a private or reserved address" (01-general-contract.md,
// "Webhooks (per server)"); offline, only literals and localhost can be judged. Hosts are given
// as WHATWG URL normalises them, which is how the linter sees them.

const host = (url: string): string => new URL(url).hostname;

describe('privateHostReason', () => {
  it.each([
    'https://127.0.0.1/', 'https://127.255.0.9/', 'https://10.0.0.1/', 'https://172.16.0.1/', 'https://172.31.255.255/',
    'https://192.168.1.1/', 'https://169.254.169.254/', 'https://100.64.0.1/', 'https://0.0.0.0/', 'https://224.0.0.1/',
    'https://255.255.255.255/', 'https://192.0.2.10/', 'https://198.51.100.1/', 'https://203.0.113.7/', 'https://198.18.0.1/',
    'https://2130706433/', 'https://0x7f.1/', 'https://localhost/', 'https://LOCALHOST./', 'https://api.localhost/',
    'https://[::1]/', 'https://[::]/', 'https://[fd12:3456::1]/', 'https://[fe80::1]/', 'https://[ff02::1]/',
    'https://[::ffff:10.0.0.1]/', 'https://[::ffff:127.0.0.1]/', 'https://[2001:db8::1]/', 'https://[64:ff9b::a00:1]/',
  ])('flags %s', (url) => {
    expect(privateHostReason(host(url))).toBeDefined();
  });

  it.each([
    'https://93.184.216.34/', 'https://172.32.0.1/', 'https://172.15.255.255/', 'https://100.128.0.1/', 'https://11.0.0.1/',
    'https://hooks.example.com/', 'https://localhost.example.com/', 'https://10.0.0.1.nip.example/',
    'https://[2606:4700::1111]/', 'https://[::ffff:93.184.216.34]/', 'https://fc.example/',
  ])('allows %s', (url) => {
    expect(privateHostReason(host(url))).toBeUndefined();
  });
});
