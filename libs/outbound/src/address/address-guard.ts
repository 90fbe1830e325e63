import { isIP } from 'node:net';
import { OutboundError } from '../errors/outbound-error';
import { nonPublicReason, normalizeAddress } from './address-classification';
import { Allowlist } from './allowlist';

/** Where a connection goes: the host as written in the URL (a name or an IP literal) and the port. */
export interface OutboundTarget {
  host: string;
  port: number;
}

/** Where a refusal's details go (a pino logger fits): the operator's log, never the client. */
export interface RefusalLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/**
 * The one decision every outbound connection passes: may `host:port`, reached at `address`, be
 * connected to? Public addresses may; others only when the allowlist names the host or covers
 * the address.
 *
 * A refusal's message reaches clients (the provider tester's result, the proxy's 502), so for a
 * host name it says only that the destination is not allowed: what the name resolved to is an
 * internal DNS answer, and goes to the log. For an IP literal the message explains the address,
 * which the client wrote itself.
 */
export class AddressGuard {
  constructor(
    private readonly allowlist: Allowlist = Allowlist.empty,
    private readonly log?: RefusalLog,
  ) {}

  /** The refusal for this connection, or undefined when it may proceed. */
  refusal(target: OutboundTarget, address: string): OutboundError | undefined {
    if (this.allowlist.allowsHost(target.host, target.port)) return undefined;
    if (!isIP(address)) return this.refuseName(target, address, 'not an IP address');
    const ip = normalizeAddress(address);
    if (this.allowlist.allowsAddress(ip, target.port)) return undefined;
    const reason = nonPublicReason(ip);
    if (!reason) return undefined;
    if (!isIP(target.host)) return this.refuseName(target, ip.toString(), reason);
    // Show what an unusual spelling stands for: ::ffff:a9fe:a9fe is 169.254.169.254.
    const shown = ip.toString() === address ? address : `${address} (${ip.toString()})`;
    return new OutboundError('blocked_address', `refused: ${shown} is ${reason} (set OUTBOUND_ALLOWLIST to allow it)`);
  }

  private refuseName(target: OutboundTarget, address: string, reason: string): OutboundError {
    this.log?.warn(
      { host: target.host, port: target.port, address, reason },
      'outbound connection refused: the host name resolved to a non-public address',
    );
    return new OutboundError(
      'blocked_address',
      `refused: ${target.host} is not an allowed destination (set OUTBOUND_ALLOWLIST to allow it)`,
    );
  }
}
