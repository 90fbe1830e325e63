import { standsAlone } from '../../engine/text-boundaries';
import type { Detector } from '../detector';

const IPV4 = '\\d{1,3}(?:\\.\\d{1,3}){3}';
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;
/** "version 1.2.3.4", "build 10.0.0.1": four dotted numbers that name a release. */
const VERSION_WORD = /\b(?:version|ver\.?|release|build|rev\.?)\s*:?\s*$/i;

export function isIpv4(value: string): boolean {
  const octets = value.split('.');
  return octets.length === 4 && octets.every((o) => /^(?:0|[1-9]\d{0,2})$/.test(o) && Number(o) <= 255);
}

/** Hex groups of an IPv6 address that are not zero-compressed, or -1 when it is not one. */
export function ipv6Groups(value: string): number {
  let head = value;
  let embedded = 0;
  const lastColon = value.lastIndexOf(':');
  const tail = value.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!isIpv4(tail)) return -1;
    head = value.slice(0, lastColon);
    embedded = 2;
    if (head.endsWith(':')) head += ':';
  }
  const halves = head.split('::');
  if (halves.length > 2) return -1;
  const groups = halves.flatMap((h) => (h === '' ? [] : h.split(':')));
  if (!groups.every((g) => HEX_GROUP.test(g))) return -1;
  const count = groups.length + embedded;
  const fits = halves.length === 2 ? count <= 7 : count === 8;
  return fits ? count : -1;
}

/**
 * IPv4 addresses (octets 0-255, no leading zeros) and IPv6 addresses (full, compressed, or with
 * an IPv4 tail). Left out on purpose: version strings ("v1.2.3.4", "1.2.3.4.5", "version
 * 10.0.0.1"), "::1"-style addresses with fewer than three groups (also "std::vector", "a[1::2]"),
 * times and MAC addresses.
 */
export const ipAddress: Detector<'ip-address'> = {
  id: 'ip-address',
  name: 'IP address',
  description: 'IPv4 and IPv6 addresses.',
  pattern: `${IPV4}|(?:[0-9A-Fa-f]{0,4}:){2,7}(?:${IPV4}|[0-9A-Fa-f]{1,4})?`,
  confirm(value, text, start) {
    if (!value.includes(':')) {
      return (
        isIpv4(value) &&
        standsAlone(text, start, start + value.length, '.') &&
        !VERSION_WORD.test(text.slice(Math.max(0, start - 16), start))
      );
    }
    // A sentence may put a colon right after an address ("at 2001:db8::1: it answered").
    const address = value.endsWith(':') && !value.endsWith('::') ? value.slice(0, -1) : value;
    const end = start + address.length;
    if (ipv6Groups(address) < 3 || !standsAlone(text, start, end, ':.')) return false;
    const before = text[start - 1];
    return before !== ':' && before !== '.' ? [[start, end]] : false;
  },
};
