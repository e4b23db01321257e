/**
 * The client address, established once per request at the gateway (issue 18, finding 8): what
 * the rate limiter and the per-client concurrency cap key on, what goes signed to the services
 * (`clientIp` of the identity) and the first hop of the `X-Forwarded-For` sent upstream.
 *
 * Without trusted proxies it is the connection's peer address and any `X-Forwarded-For` of the
 * client is ignored. Behind proxies, `X-Forwarded-For` is walked from the right (the entries the
 * proxies nearest to the gateway appended) while the hop is trusted; the first untrusted entry
 * is the client. Never the first (left-most) entry: whoever sends the request writes that one.
 * Trust is either a hop count (`TRUST_PROXY_HOPS`: that many proxies in front, the peer being the
 * first) or a list of proxy addresses and networks (`TRUSTED_PROXIES`: a hop is trusted when its
 * address is in the list). An entry that is not an IP address stops the walk at the trusted hop
 * to its right (a proxy we trust never writes one; whatever wrote it is not to be believed).
 *
 * When not to use: services never derive a client address themselves; they read the signed one.
 */
import { BlockList, isIP } from 'node:net';

/** How far the gateway trusts `X-Forwarded-*` (one of the two, or neither). */
export interface TrustSpec {
  /** Proxies in front of the gateway that append to `X-Forwarded-For` (0 = none). */
  hops: number;
  /** Addresses and networks of trusted proxies (`10.0.0.0/8`, `2001:db8::/32`, `127.0.0.1`, `loopback`, `private`). */
  list: string;
}

/** A request's client address and the `X-Forwarded-For` to send upstream (it starts with that address). */
export interface ClientAddress {
  ip: string;
  forwardedFor: string;
}

/** Named networks accepted in TRUSTED_PROXIES. */
const NAMED: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
};

/** At most this many `X-Forwarded-For` entries are looked at (from the right): bounded work. */
const MAX_HOPS = 32;

/**
 * An address as it appears in `X-Forwarded-For` or as a socket's peer, normalized: brackets and a
 * port removed, an IPv4-mapped IPv6 address as IPv4, IPv6 lower case. Undefined when it is not an
 * IP address. Exported for tests.
 */
export function normalizeAddress(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let a = raw.trim();
  if (a.length === 0 || a.length > 64) return undefined;
  if (a.charCodeAt(0) === 91 /* [ */) {
    // `[2001:db8::1]` or `[2001:db8::1]:443`
    const end = a.indexOf(']');
    if (end === -1 || (end !== a.length - 1 && !(a.charCodeAt(end + 1) === 58 /* : */ && isPort(a.slice(end + 2))))) return undefined;
    a = a.slice(1, end);
    return isIP(a) === 6 ? unmap(a.toLowerCase()) : undefined;
  }
  const kind = isIP(a);
  if (kind === 6) return unmap(a.toLowerCase());
  if (kind === 4) return a;
  // `1.2.3.4:5678` (some load balancers add the port)
  const colon = a.lastIndexOf(':');
  if (colon > 0 && a.indexOf(':') === colon && isPort(a.slice(colon + 1)) && isIP(a.slice(0, colon)) === 4) return a.slice(0, colon);
  return undefined;
}

const isPort = (s: string) => /^\d{1,5}$/.test(s) && Number(s) <= 65535;

function unmap(v6: string): string {
  return v6.startsWith('::ffff:') && isIP(v6.slice(7)) === 4 ? v6.slice(7) : v6;
}

/** Who may set `X-Forwarded-*`: compiled once from the configuration. */
export class TrustedProxies {
  private readonly hops: number;
  private readonly nets: BlockList | undefined;

  constructor(spec: TrustSpec) {
    const entries = spec.list
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (entries.length > 0 && spec.hops > 0) throw new Error('TRUSTED_PROXIES and TRUST_PROXY_HOPS are exclusive: set one of them');
    this.hops = spec.hops;
    if (entries.length === 0) return;
    const nets = new BlockList();
    for (const e of entries) {
      for (const one of NAMED[e.toLowerCase()] ?? [e]) {
        const slash = one.indexOf('/');
        const addr = normalizeAddress(slash === -1 ? one : one.slice(0, slash));
        const kind = addr === undefined ? 0 : isIP(addr);
        const bits = slash === -1 ? (kind === 4 ? 32 : 128) : Number(one.slice(slash + 1));
        if (
          addr === undefined ||
          !Number.isInteger(bits) ||
          bits < 0 ||
          bits > (kind === 4 ? 32 : 128) ||
          (slash !== -1 && !/^\d{1,3}$/.test(one.slice(slash + 1)))
        ) {
          throw new Error(`TRUSTED_PROXIES: "${e}" is not an IP address, a CIDR network, loopback, private or linklocal`);
        }
        nets.addSubnet(addr, bits, kind === 4 ? 'ipv4' : 'ipv6');
      }
    }
    this.nets = nets;
  }

  /** True when some proxy is trusted (`X-Forwarded-*` is read at all). */
  get enabled(): boolean {
    return this.hops > 0 || this.nets !== undefined;
  }

  /** True when the connection's peer is a trusted proxy (then `X-Forwarded-Proto/Host` are believed). */
  trustsPeer(remote: string | undefined): boolean {
    if (this.hops > 0) return true;
    const peer = normalizeAddress(remote);
    return peer !== undefined && this.trusted(peer, 0);
  }

  /** The client address of a request from `remote` carrying `xff` (its `X-Forwarded-For`). */
  resolve(remote: string | undefined, xff: string | string[] | undefined): ClientAddress {
    const norm = normalizeAddress(remote);
    const peer = norm ?? remote ?? '';
    if (!this.enabled || xff === undefined || norm === undefined || !this.trusted(norm, 0)) return { ip: peer, forwardedFor: peer };
    const all = (Array.isArray(xff) ? xff.join(',') : xff).split(',');
    const chain = all.length > MAX_HOPS ? all.slice(all.length - MAX_HOPS) : all;
    let client = peer;
    let start = chain.length;
    const kept: string[] = [];
    for (let i = chain.length - 1, hop = 1; i >= 0; i--, hop++) {
      const a = normalizeAddress(chain[i]);
      if (a === undefined) break;
      client = a;
      start = i;
      kept.push(a);
      if (!this.trusted(a, hop)) break;
    }
    if (start === chain.length) return { ip: peer, forwardedFor: peer };
    kept.reverse();
    kept.push(peer);
    return { ip: client, forwardedFor: kept.join(', ') };
  }

  /** `hop` 0 is the peer, 1 the entry it appended, and so on. */
  private trusted(addr: string, hop: number): boolean {
    if (this.nets === undefined) return hop < this.hops;
    return this.nets.check(addr, isIP(addr) === 4 ? 'ipv4' : 'ipv6');
  }
}

/**
 * The trust of the configuration: `TRUSTED_PROXIES`, `TRUST_PROXY_HOPS`, and the deprecated
 * `TRUST_PROXY=true`, which means one hop (the ingress in front) when neither is set.
 */
export function trustFromConfig(c: { TRUSTED_PROXIES: string; TRUST_PROXY_HOPS: number; TRUST_PROXY: boolean }): TrustedProxies {
  const hops = c.TRUST_PROXY_HOPS === 0 && c.TRUST_PROXY && c.TRUSTED_PROXIES.trim() === '' ? 1 : c.TRUST_PROXY_HOPS;
  return new TrustedProxies({ hops, list: c.TRUSTED_PROXIES });
}
