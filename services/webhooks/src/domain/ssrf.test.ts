import { describe, expect, it } from 'vitest';
import { checkAddress, parseCidrs, resolveChecked } from './ssrf.js';

describe('checkAddress', () => {
  const refused: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloud metadata (link-local)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.100.100.200', 'Alibaba metadata (CGNAT)'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.1', 'IETF reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with zone'],
    ['fc00::1', 'unique local'],
    ['fd00:ec2::254', 'AWS IPv6 metadata (ULA)'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of metadata'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a00:1::', '6to4 of 10.0.0.1'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['ff02::1', 'IPv6 multicast'],
    ['[::1]', 'bracketed IPv6 loopback'],
    ['2001:db8::1', 'documentation'],
    ['0177.0.0.1', 'octal loopback'],
    ['2130706433', 'decimal loopback'],
    ['0x7f.0.0.1', 'hex loopback'],
  ];
  it.each(refused)('should refuse %s (%s)', (address) => {
    expect(checkAddress(address)).not.toBeNull();
  });

  const allowed = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
  it.each(allowed)('should allow public %s', (address) => {
    expect(checkAddress(address)).toBeNull();
  });

  it('should refuse what is not an address', () => {
    expect(checkAddress('localhost')).toMatch(/not an IP/);
    expect(checkAddress('not-an-ip')).toMatch(/not an IP/);
    // Short inet_aton forms are addresses: 10.1 is 10.0.0.1.
    expect(checkAddress('10.1')).not.toBeNull();
  });

  it('should allow configured ranges, including their IPv4-mapped form, and nothing more', () => {
    const cidrs = parseCidrs('127.0.0.0/8, fd12::/16');
    expect(checkAddress('127.0.0.1', cidrs)).toBeNull();
    expect(checkAddress('::ffff:127.0.0.1', cidrs)).toBeNull();
    expect(checkAddress('fd12::5', cidrs)).toBeNull();
    expect(checkAddress('::1', cidrs)).not.toBeNull();
    expect(checkAddress('10.0.0.1', cidrs)).not.toBeNull();
    expect(checkAddress('169.254.169.254', cidrs)).not.toBeNull();
  });

  it('should refuse a bad range in the configuration', () => {
    expect(() => parseCidrs('127.0.0.0/33')).toThrow();
    expect(() => parseCidrs('nonsense')).toThrow();
  });
});

describe('resolveChecked', () => {
  it('should refuse a name resolving to loopback (localhost) unless allowed', async () => {
    expect((await resolveChecked('localhost', [])).refusal).not.toBeNull();
    const v4only = await resolveChecked('127.0.0.1', parseCidrs('127.0.0.0/8'));
    expect(v4only.refusal).toBeNull();
  });
});
