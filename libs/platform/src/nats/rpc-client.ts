import { randomUUID } from 'node:crypto';
import { DomainError, ErrorCode } from '@bastion/contracts';
import { headers, type NatsConnection, RequestError, TimeoutError } from '@nats-io/transport-node';
import { REQUEST_ID_HEADER } from '../logging/request-context';

interface NestReply<T> {
  err?: unknown;
  response?: T;
}

/**
 * Request-reply to a Nest NATS microservice over the connection's shared reply inbox. Speaks Nest's
 * packet format (`{pattern, data, id}` in, `{err | response}` back) and turns transport failures
 * into the platform's error codes: nobody listening is UNAVAILABLE, no answer in time is
 * DEADLINE_EXCEEDED.
 */
export class NatsRpcClient {
  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
  ) {}

  async request<T>(subject: string, data: unknown, requestId: string): Promise<T> {
    const h = headers();
    h.set(REQUEST_ID_HEADER, requestId);
    const packet = JSON.stringify({ pattern: subject, data, id: randomUUID() });
    let reply: NestReply<T>;
    try {
      const msg = await this.nc.request(subject, packet, { timeout: this.timeoutMs, headers: h });
      reply = msg.json<NestReply<T>>();
    } catch (err) {
      throw transportError(subject, err);
    }
    if (reply.err !== undefined && reply.err !== null) {
      throw DomainError.fromPayload(reply.err) ?? new DomainError(ErrorCode.INTERNAL, 'internal error');
    }
    return reply.response as T;
  }
}

function transportError(subject: string, err: unknown): DomainError {
  const service = subject.split('.')[0];
  if (err instanceof RequestError && err.isNoResponders()) {
    return new DomainError(ErrorCode.UNAVAILABLE, `the ${service} service is not available`);
  }
  if (err instanceof TimeoutError || (err instanceof Error && err.cause instanceof TimeoutError)) {
    return new DomainError(ErrorCode.DEADLINE_EXCEEDED, `the ${service} service did not answer in time`);
  }
  return new DomainError(ErrorCode.UNAVAILABLE, `the ${service} service could not be reached`);
}
