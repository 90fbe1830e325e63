import { isIP } from 'node:net';
import { OutboundError } from '../errors/outbound-error';
import { nonPublicReason, normalizeAddress } from './address-classification';
import { Allowlist } from './allowlist';

/** Where a connection goes: the host as written in the URL (a name or an IP literal) and the port. */
export interface OutboundTarget {
  host: string;
  port: number;
}

/**
 * The one decision every outbound connection passes: may `host:port`, reached at `address`, be
 * connected to? Public addresses may; others only when the allowlist names the host or covers
 * the address.
 */
export class AddressGuard {
  constructor(private readonly allowlist: Allowlist = Allowlist.empty) {}

  /** The refusal for this connection, or undefined when it may proceed. */
  refusal(target: OutboundTarget, address: string): OutboundError | undefined {
    if (this.allowlist.allowsHost(target.host, target.port)) return undefined;
    if (!isIP(address))
      return new OutboundError(
        'blocked_address',
        `refused: ${target.host} resolved to "${address}", not an IP address`,
      );
    const ip = normalizeAddress(address);
    if (this.allowlist.allowsAddress(ip, target.port)) return undefined;
    const reason = nonPublicReason(ip);
    if (!reason) return undefined;
    // Show what an unusual spelling stands for: ::ffff:a9fe:a9fe is 169.254.169.254.
    const shown = ip.toString() === address ? address : `${address} (${ip.toString()})`;
    const subject = isIP(target.host) ? `${shown} is ${reason}` : `${target.host} resolves to ${shown}, ${reason}`;
    return new OutboundError('blocked_address', `refused: ${subject} (set OUTBOUND_ALLOWLIST to allow it)`);
  }
}
