import * as ipaddr from 'ipaddr.js';

type IP = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Decides whether an address is a public destination. The rule is an allow rule, not a deny
 * list: only global unicast passes (IPv4 outside every special-purpose range, IPv6 inside
 * 2000::/3 and outside its special ranges), so a range nobody thought of is refused rather than
 * reached. Addresses that embed an IPv4 address and reach it (IPv4-mapped `::ffff:a.b.c.d`, the
 * NAT64 prefix `64:ff9b::/96`) are judged by the embedded address.
 */

/** Well-known instance metadata endpoints, named so the refusal says what was at stake. */
const METADATA = new Map<string, string>(
  [
    ['169.254.169.254', 'a link-local/metadata address'], // AWS, GCP, Azure, OCI, DigitalOcean
    ['169.254.170.2', 'a link-local/metadata address'], // AWS ECS task credentials
    ['fd00:ec2::254', 'a cloud metadata address'], // AWS over IPv6
    ['100.100.100.200', 'a cloud metadata address'], // Alibaba Cloud
  ].map(([address, label]) => [ipaddr.parse(address).toNormalizedString(), label]),
);

const RANGE_LABELS: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  private: 'a private address',
  uniqueLocal: 'a private (unique local) address',
};
const SPECIAL = 'a reserved/special-purpose address';

const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/** Parses an address as sockets see it: IPv4-mapped IPv6 becomes the IPv4 address it reaches. */
export function normalizeAddress(address: string): IP {
  const ip = ipaddr.parse(address);
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? (ip as ipaddr.IPv6).toIPv4Address() : ip;
}

/** Why the address is not a public destination (e.g. "a loopback address"), or undefined. */
export function nonPublicReason(address: string | IP): string | undefined {
  const ip = typeof address === 'string' ? normalizeAddress(address) : address;
  const metadata = METADATA.get(ip.toNormalizedString());
  if (metadata) return metadata;
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return nonPublicReason(v6.toIPv4Address());
    if (v6.match(NAT64)) return nonPublicReason(ipaddr.IPv4.parse(embeddedIPv4(v6)));
  }
  const range = ip.range();
  if (range !== 'unicast') return RANGE_LABELS[range] ?? SPECIAL;
  // ipaddr calls every unlisted IPv6 address "unicast", including unallocated space and the
  // deprecated IPv4-compatible ::a.b.c.d form: only the global unicast block is public.
  if (ip.kind() === 'ipv6' && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return SPECIAL;
  return undefined;
}

function embeddedIPv4(v6: ipaddr.IPv6): string {
  const [hi, lo] = v6.parts.slice(6);
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
}
