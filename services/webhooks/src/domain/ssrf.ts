/**
 * Server-side request forgery guard of webhook targets.
 *
 * When to use: every outgoing delivery goes through `pinnedLookup` (the undici Agent's
 * `connect.lookup`: the address checked is the address connected to, so a DNS answer cannot change
 * between check and connect) and IP-literal hosts through `checkAddress`; `checkTarget` at create
 * and update. Only public unicast addresses pass, unless an administrator-configured range
 * (WEBHOOKS_ALLOWED_CIDRS) contains the address. IPv4-mapped, NAT64 and 6to4 IPv6 forms are judged
 * by the IPv4 address they carry.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

type Addr = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Addr, number];

/** Why an address was refused, or null when it may be reached. */
export type Refusal = string | null;

/** Parse the comma-separated WEBHOOKS_ALLOWED_CIDRS (throws on a bad range). */
export function parseCidrs(list: string): Cidr[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => ipaddr.parseCIDR(s) as Cidr);
}

/** The IPv4 address an IPv6 address embeds (mapped, NAT64 64:ff9b::/96, 6to4 2002::/16), if any. */
function embeddedV4(a: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (a.isIPv4MappedAddress()) return a.toIPv4Address();
  const range = a.range();
  const b = a.toByteArray();
  if (range === 'rfc6052') return new ipaddr.IPv4(b.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(b.slice(2, 6));
  // IPv4-compatible (deprecated ::a.b.c.d, not :: or ::1).
  if (b.slice(0, 12).every((x) => x === 0) && !(b[12] === 0 && b[13] === 0 && b[14] === 0 && (b[15] ?? 0) <= 1)) {
    return new ipaddr.IPv4(b.slice(12, 16));
  }
  return null;
}

const inRanges = (a: Addr, ranges: Cidr[]) => ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));

/** Judge one address text: null when reachable, else the reason. */
export function checkAddress(text: string, allowed: Cidr[] = []): Refusal {
  let a: Addr;
  try {
    a = ipaddr.parse(text.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return `not an IP address: ${text}`;
  }
  if (inRanges(a, allowed)) return null;
  if (a.kind() === 'ipv6') {
    const v4 = embeddedV4(a as ipaddr.IPv6);
    if (v4) return checkAddress(v4.toString(), allowed);
  }
  const range = a.range();
  return range === 'unicast' ? null : `address ${a.toString()} is ${range}`;
}

/** Whether a URL host is an IP literal (then no lookup happens: check it with checkAddress). */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}

/** Resolve a host name and judge every address (one bad address refuses the host). */
export async function resolveChecked(host: string, allowed: Cidr[]): Promise<{ addresses: LookupAddress[]; refusal: Refusal }> {
  if (isIpLiteral(host)) {
    const address = host.replace(/^\[|\]$/g, '');
    return { addresses: [{ address, family: address.includes(':') ? 6 : 4 }], refusal: checkAddress(address, allowed) };
  }
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, res) => (err ? reject(err) : resolve(res))),
  );
  if (addresses.length === 0) return { addresses, refusal: `${host} has no address` };
  for (const a of addresses) {
    const refusal = checkAddress(a.address, allowed);
    if (refusal) return { addresses, refusal };
  }
  return { addresses, refusal: null };
}

/** An error of a refused target (never retried as a network blip, but counted as a failure). */
export class TargetRefused extends Error {
  readonly code = 'ETARGETREFUSED';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect (undici `connect.lookup`) that resolves, refuses any forbidden
 * address, and answers only checked addresses, so the connection goes where the check looked.
 */
export function pinnedLookup(allowed: Cidr[]) {
  return (hostname: string, options: { all?: boolean } | number | undefined, callback: LookupCallback): void => {
    const all = typeof options === 'object' && options !== null && options.all === true;
    resolveChecked(hostname, allowed).then(
      ({ addresses, refusal }) => {
        if (refusal) return callback(new TargetRefused(refusal), all ? [] : '', 0);
        if (all) return callback(null, addresses);
        const first = addresses[0] as LookupAddress;
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, all ? [] : '', 0),
    );
  };
}
