import { describe, expect, it } from 'vitest';
import { TrustedProxies, normalizeAddress, trustFromConfig } from './client-address.js';

const none = new TrustedProxies({ hops: 0, list: '' });
const oneHop = new TrustedProxies({ hops: 1, list: '' });
const twoHops = new TrustedProxies({ hops: 2, list: '' });
const cluster = new TrustedProxies({ hops: 0, list: '10.0.0.0/8, 2001:db8:1::/48, 192.0.2.1' });

describe(TrustedProxies.name, () => {
  it('should take the peer address and ignore X-Forwarded-For without trusted proxies', () => {
    expect(none.enabled).toBe(false);
    expect(none.resolve('203.0.113.7', '1.2.3.4')).toEqual({ ip: '203.0.113.7', forwardedFor: '203.0.113.7' });
    expect(none.resolve('::ffff:203.0.113.7', undefined)).toEqual({ ip: '203.0.113.7', forwardedFor: '203.0.113.7' });
  });

  it('should never take a spoofed first hop: behind one ingress the entry it appended is the client', () => {
    // The client wrote `1.1.1.1, 2.2.2.2`; the ingress (10.0.0.5) appended the real peer 198.51.100.4.
    expect(oneHop.resolve('10.0.0.5', '1.1.1.1, 2.2.2.2, 198.51.100.4')).toEqual({
      ip: '198.51.100.4',
      forwardedFor: '198.51.100.4, 10.0.0.5',
    });
    // An ingress that replaces the header: one entry, the client.
    expect(oneHop.resolve('10.0.0.5', '198.51.100.4').ip).toBe('198.51.100.4');
    // Nothing appended (a caller reaching the gateway directly): the peer.
    expect(oneHop.resolve('10.0.0.5', undefined)).toEqual({ ip: '10.0.0.5', forwardedFor: '10.0.0.5' });
    // Repeated headers are one list.
    expect(oneHop.resolve('10.0.0.5', ['1.1.1.1', '198.51.100.4']).ip).toBe('198.51.100.4');
  });

  it('should count hops from the right through several proxies', () => {
    expect(twoHops.resolve('10.0.0.5', '6.6.6.6, 198.51.100.4, 172.16.0.9')).toEqual({
      ip: '198.51.100.4',
      forwardedFor: '198.51.100.4, 172.16.0.9, 10.0.0.5',
    });
    // Fewer entries than hops: the left-most one there is.
    expect(twoHops.resolve('10.0.0.5', '198.51.100.4').ip).toBe('198.51.100.4');
  });

  it('should walk a list of trusted networks from the right, stopping at the first address outside it', () => {
    expect(cluster.resolve('10.1.2.3', '6.6.6.6, 198.51.100.4, 10.9.9.9, 192.0.2.1')).toEqual({
      ip: '198.51.100.4',
      forwardedFor: '198.51.100.4, 10.9.9.9, 192.0.2.1, 10.1.2.3',
    });
    // A spoofed trusted-looking address left of the client changes nothing.
    expect(cluster.resolve('10.1.2.3', '10.6.6.6, 198.51.100.4').ip).toBe('198.51.100.4');
    // A peer outside the list: its X-Forwarded-For is not believed.
    expect(cluster.resolve('198.51.100.9', '1.2.3.4')).toEqual({ ip: '198.51.100.9', forwardedFor: '198.51.100.9' });
    expect(cluster.trustsPeer('198.51.100.9')).toBe(false);
    expect(cluster.trustsPeer('::ffff:10.0.0.1')).toBe(true);
  });

  it('should handle IPv6 peers, entries and networks', () => {
    expect(cluster.resolve('2001:db8:1::5', '2001:DB8:FFFF::1, [2001:db8:1::7]:443')).toEqual({
      ip: '2001:db8:ffff::1',
      forwardedFor: '2001:db8:ffff::1, 2001:db8:1::7, 2001:db8:1::5',
    });
    expect(oneHop.resolve('::1', '::ffff:198.51.100.4').ip).toBe('198.51.100.4');
  });

  it('should stop at garbage: the trusted hop to its right is the client', () => {
    expect(oneHop.resolve('10.0.0.5', 'not-an-ip')).toEqual({ ip: '10.0.0.5', forwardedFor: '10.0.0.5' });
    expect(twoHops.resolve('10.0.0.5', '198.51.100.4, unknown, 172.16.0.9')).toEqual({
      ip: '172.16.0.9',
      forwardedFor: '172.16.0.9, 10.0.0.5',
    });
    for (const junk of ['', ' , ', '1.2.3', '1.2.3.4.5', '999.1.1.1', `${'1'.repeat(100)}`, '1.2.3.4:99999', '[::1', '::1]']) {
      expect(oneHop.resolve('10.0.0.5', junk).ip, junk).toBe('10.0.0.5');
    }
  });

  it('should accept a port on IPv4 and bracketed IPv6 entries', () => {
    expect(normalizeAddress(' 198.51.100.4:5678 ')).toBe('198.51.100.4');
    expect(normalizeAddress('[2001:db8::1]:80')).toBe('2001:db8::1');
    expect(normalizeAddress('[2001:db8::1]')).toBe('2001:db8::1');
    expect(normalizeAddress('2001:db8::1:80')).toBe('2001:db8::1:80');
    expect(normalizeAddress('unknown')).toBeUndefined();
  });

  it('should look at a bounded number of hops', () => {
    const long = Array.from({ length: 5000 }, (_, i) => `10.0.${Math.floor(i / 250)}.${i % 250}`).join(', ');
    const all = new TrustedProxies({ hops: 0, list: 'private' });
    const r = all.resolve('10.0.0.1', long);
    // Every hop trusted: the left-most of the last 32 looked at.
    expect(r.forwardedFor.split(', ')).toHaveLength(33);
  });

  it('should refuse a bad list and both kinds of trust at once', () => {
    expect(() => new TrustedProxies({ hops: 0, list: '10.0.0.0/33' })).toThrow(/TRUSTED_PROXIES/);
    expect(() => new TrustedProxies({ hops: 0, list: 'ingress.local' })).toThrow(/TRUSTED_PROXIES/);
    expect(() => new TrustedProxies({ hops: 0, list: '10.0.0.0/x' })).toThrow(/TRUSTED_PROXIES/);
    expect(() => new TrustedProxies({ hops: 1, list: '10.0.0.0/8' })).toThrow(/exclusive/);
    expect(new TrustedProxies({ hops: 0, list: 'loopback, private, linklocal' }).trustsPeer('fe80::1')).toBe(true);
  });
});

describe(trustFromConfig.name, () => {
  it('should read the deprecated TRUST_PROXY=true as one hop, and nothing by default', () => {
    expect(trustFromConfig({ TRUSTED_PROXIES: '', TRUST_PROXY_HOPS: 0, TRUST_PROXY: false }).enabled).toBe(false);
    const legacy = trustFromConfig({ TRUSTED_PROXIES: '', TRUST_PROXY_HOPS: 0, TRUST_PROXY: true });
    expect(legacy.resolve('10.0.0.5', '6.6.6.6, 198.51.100.4').ip).toBe('198.51.100.4');
    expect(
      trustFromConfig({ TRUSTED_PROXIES: '', TRUST_PROXY_HOPS: 2, TRUST_PROXY: true }).resolve(
        '10.0.0.5',
        '6.6.6.6, 198.51.100.4, 10.0.0.4',
      ).ip,
    ).toBe('198.51.100.4');
  });
});
