import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { processState, resilientOptions } from './connection-state';

/** Injection token of the process's own NATS connection (JetStream, RPC client). */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

/**
 * The process's own connection: reconnects forever with backoff and jitter, and is tracked, so
 * readiness is 503 and RPC calls fail fast while it is down. An outage is logged twice (lost, back),
 * not per request.
 */
export async function connectNats(url: string, name: string, logger?: Logger): Promise<NatsConnection> {
  const { attempts, ...options } = resilientOptions();
  // noAsyncTraces: otherwise every request builds an Error (a stack trace) up front in case it
  // fails, which profiles showed at 3-4% of the gateway's and the proxy's CPU.
  const nc = await connect({ servers: url.split(','), name, ...options, noAsyncTraces: true });
  processState.track(
    nc,
    name,
    (connected, downForMs) => {
      if (connected) logger?.warn({ connection: name, downForMs }, 'NATS connection back');
      else logger?.error({ connection: name }, 'NATS connection lost; reconnecting');
    },
    attempts,
  );
  return nc;
}
