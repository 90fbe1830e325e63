import * as ipaddr from 'ipaddr.js';
import { normalizeAddress } from './address-classification';

type IP = ipaddr.IPv4 | ipaddr.IPv6;

/** One `OUTBOUND_ALLOWLIST` entry: a host name (as written in URLs) or an address range, with an optional port. */
export type AllowlistEntry =
  { kind: 'host'; host: string; port?: number } | { kind: 'range'; range: [IP, number]; port?: number };

export class AllowlistSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AllowlistSyntaxError';
  }
}

/**
 * The destinations an operator allows although they are not public (a model server on the
 * cluster network, a local test double). Host entries trust a name wherever it resolves; address
 * entries trust addresses, whatever name led to them.
 */
export class Allowlist {
  static readonly empty = new Allowlist([]);

  constructor(readonly entries: readonly AllowlistEntry[]) {}

  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  allowsHost(host: string, port: number): boolean {
    const name = canonicalHost(host);
    return this.entries.some((e) => e.kind === 'host' && e.host === name && (e.port === undefined || e.port === port));
  }

  allowsAddress(address: string | IP, port: number): boolean {
    const ip = typeof address === 'string' ? normalizeAddress(address) : address;
    return this.entries.some(
      (e) =>
        e.kind === 'range' &&
        e.range[0].kind() === ip.kind() &&
        ip.match(e.range) &&
        (e.port === undefined || e.port === port),
    );
  }
}

/**
 * Parses `OUTBOUND_ALLOWLIST`: comma-separated entries, each a host name (`localhost`,
 * case-insensitive, exact), `host:port`, an IP (`10.0.0.7`, `::1`), `ip:port` (`[::1]:8080` for
 * IPv6) or a CIDR (`10.0.0.0/8`). Empty entries are ignored so a trailing comma is harmless.
 */
export function parseAllowlist(spec: string | undefined): Allowlist {
  if (!spec) return Allowlist.empty;
  const entries = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseEntry);
  return new Allowlist(entries);
}

function parseEntry(entry: string): AllowlistEntry {
  const fail = (why: string): never => {
    throw new AllowlistSyntaxError(`OUTBOUND_ALLOWLIST entry "${entry}": ${why}`);
  };
  if (entry.includes('/')) return { kind: 'range', range: parseCidr(entry, fail) };

  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    if (!ipaddr.IPv6.isValid(bracketed[1])) fail('brackets must hold an IPv6 address');
    return withPort({ kind: 'range', range: single(ipaddr.IPv6.parse(bracketed[1])) }, bracketed[2], fail);
  }
  if (ipaddr.IPv6.isValid(entry)) return { kind: 'range', range: single(ipaddr.IPv6.parse(entry)) };

  const colon = entry.lastIndexOf(':');
  if (colon >= 0 && entry.indexOf(':') !== colon) fail('write an IPv6 address with a port as [address]:port');
  const [host, port] = colon >= 0 ? [entry.slice(0, colon), entry.slice(colon + 1)] : [entry, undefined];
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) {
    return withPort({ kind: 'range', range: single(ipaddr.IPv4.parse(host)) }, port, fail);
  }
  return withPort({ kind: 'host', host: parseHostName(host, fail) }, port, fail);
}

function parseCidr(entry: string, fail: (why: string) => never): [IP, number] {
  const [address, bits] = entry.split('/');
  if (!/^\d{1,3}$/.test(bits ?? '')) fail('the prefix length after "/" must be a number');
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) {
    if (Number(bits) > 32) fail('an IPv4 prefix length is at most 32');
    return [ipaddr.IPv4.parse(address), Number(bits)];
  }
  if (ipaddr.IPv6.isValid(address)) {
    if (Number(bits) > 128) fail('an IPv6 prefix length is at most 128');
    const ip = ipaddr.IPv6.parse(address);
    // Sockets report IPv4-mapped peers as IPv4 (see normalizeAddress), so ranges must match them too.
    return ip.isIPv4MappedAddress() && Number(bits) >= 96
      ? [ip.toIPv4Address(), Number(bits) - 96]
      : [ip, Number(bits)];
  }
  return fail('a CIDR needs an IPv4 address written as four decimal numbers or an IPv6 address');
}

function single(ip: IP): [IP, number] {
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress())
    return [(ip as ipaddr.IPv6).toIPv4Address(), 32];
  return [ip, ip.kind() === 'ipv4' ? 32 : 128];
}

function withPort<E extends AllowlistEntry>(entry: E, port: string | undefined, fail: (why: string) => never): E {
  if (port === undefined) return entry;
  const n = /^\d{1,5}$/.test(port) ? Number(port) : NaN;
  if (!(n >= 1 && n <= 65535)) fail('the port must be a number from 1 to 65535');
  return { ...entry, port: n };
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

function parseHostName(host: string, fail: (why: string) => never): string {
  const name = canonicalHost(host);
  if (name.length === 0 || name.length > 253 || !name.split('.').every((l) => LABEL.test(l))) {
    fail('not a host name, host:port, IP address or CIDR');
  }
  // URL parsers read a host whose last label is numeric as an IPv4 address (`0x7f000001`,
  // `127.1`), so such a name could never match a request's host: say so instead of ignoring it.
  const last = name.slice(name.lastIndexOf('.') + 1);
  if (/^(\d+|0x[0-9a-f]*)$/.test(last)) fail('IPv4 addresses must be written as four decimal numbers');
  return name;
}

/** Host names compare lowercased and without the root dot (`Example.COM.` is `example.com`). */
function canonicalHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}
