import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AddressGuard } from '../address/address-guard';
import { createGuardedLookup, type Resolver } from '../address/guarded-lookup';
import { OutboundError } from '../errors/outbound-error';

type OnCreate = (err: Error | null, socket: Duplex) => void;

/** Node's agent takes a creation error through the callback, with no socket (Agent#createConnection). */
function refuse(onCreate: OnCreate | undefined, err: Error): undefined {
  (onCreate as ((err: Error) => void) | undefined)?.(err);
  return undefined;
}

/**
 * Agents are where every socket of the client is born, so the guard sits here rather than in
 * request code that a caller option (a proxy, a socket path, another transport) could route
 * around. Names resolve through the guarded lookup; IP literals, which sockets never look up,
 * are checked directly. The socket is still opened with the URL's host name, so TLS SNI,
 * certificate checks and the Host header all use the original name.
 */
function guardConnection(
  options: http.ClientRequestArgs,
  guard: AddressGuard,
  resolve: Resolver,
): http.ClientRequestArgs | OutboundError {
  if (options.socketPath)
    return new OutboundError('blocked_address', 'refused: unix socket connections are not outbound HTTP');
  const host = options.host ?? 'localhost';
  const port = Number(options.port) || Number(options.defaultPort) || 80;
  if (isIP(host)) return guard.refusal({ host, port }, host) ?? options;
  return { ...options, lookup: createGuardedLookup(guard, port, resolve) };
}

class GuardedHttpAgent extends http.Agent {
  constructor(
    private readonly guard: AddressGuard,
    private readonly resolve: Resolver,
    options: http.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, onCreate?: OnCreate): Duplex | null | undefined {
    const guarded = guardConnection(options, this.guard, this.resolve);
    if (guarded instanceof Error) return refuse(onCreate, guarded);
    return super.createConnection(guarded, onCreate);
  }
}

class GuardedHttpsAgent extends https.Agent {
  constructor(
    private readonly guard: AddressGuard,
    private readonly resolve: Resolver,
    options: https.AgentOptions,
  ) {
    super(options);
  }

  override createConnection(options: http.ClientRequestArgs, onCreate?: OnCreate): Duplex | null | undefined {
    const guarded = guardConnection(options, this.guard, this.resolve);
    if (guarded instanceof Error) return refuse(onCreate, guarded);
    return super.createConnection(guarded, onCreate);
  }
}

export interface GuardedAgents {
  http: http.Agent;
  https: https.Agent;
}

/** Keep-alive agents: the message proxy calls the same few providers all day, reusing TLS sessions. */
export function createGuardedAgents(guard: AddressGuard, resolve: Resolver): GuardedAgents {
  const options = { keepAlive: true, scheduling: 'lifo' as const };
  return {
    http: new GuardedHttpAgent(guard, resolve, options),
    https: new GuardedHttpsAgent(guard, resolve, options),
  };
}
