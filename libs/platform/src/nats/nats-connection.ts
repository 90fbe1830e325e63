import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Injection token of the process's own NATS connection (JetStream, RPC client). */
export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

export function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({ servers: url.split(','), name, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
}
