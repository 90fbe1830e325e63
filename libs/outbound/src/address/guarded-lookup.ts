import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressGuard } from './address-guard';

/** Resolves a host name to every address it has (injectable so tests can play a hostile DNS). */
export type Resolver = (hostname: string, family: 0 | 4 | 6) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname, family) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, family }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/**
 * A socket `lookup` that resolves once, checks every address, and hands the socket exactly the
 * addresses it checked. Checking a name and then letting the socket resolve it again would let
 * a DNS server answer "public" to the check and "private" to the connection (DNS rebinding).
 * One refused address refuses the name: a record set that mixes public and private addresses is
 * a rebinding attempt or a misconfiguration, and neither should reach the private one.
 */
export function createGuardedLookup(
  guard: AddressGuard,
  port: number,
  resolve: Resolver = systemResolver,
): LookupFunction {
  return (hostname, options, callback) => {
    const fail = (err: NodeJS.ErrnoException) => callback(err, options.all ? [] : '');
    resolve(hostname, familyOf(options)).then((addresses) => {
      if (addresses.length === 0) {
        return fail(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }));
      }
      for (const { address } of addresses) {
        const refusal = guard.refusal({ host: hostname, port }, address);
        if (refusal) return fail(refusal);
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    }, fail);
  };
}

function familyOf(options: LookupOptions): 0 | 4 | 6 {
  const f = options.family;
  return f === 4 || f === 'IPv4' ? 4 : f === 6 || f === 'IPv6' ? 6 : 0;
}
