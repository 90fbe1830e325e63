import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsRpcClient } from '@bastion/platform';
import type { FastifyReply } from 'fastify';

type Frame = { kind: 'head'; status: number; contentType: string; promptId: string } | { kind: 'data'; data: string };

/** How long a stream may stay silent before the gateway gives up on it (ms). */
const STREAM_IDLE_MS = 120_000;

/**
 * Relays a streamed exchange of the message proxy to the client: NATS replies in, the HTTP body
 * out. Until the first frame arrives nothing is sent, so an early error (a block, an unknown
 * provider, a limit) still leaves as an ordinary error with its status. After that the proxy's
 * frames are written as they come; `failure` writes a transport failure in the route's dialect.
 */
export async function relayStream(
  rpc: NatsRpcClient,
  nc: NatsConnection,
  subject: string,
  command: Record<string, unknown>,
  rid: string,
  reply: FastifyReply,
  failure: (message: string) => string,
): Promise<void> {
  const cancelSubject = `proxy.cancel.${randomUUID()}`;
  const frames = rpc.stream<Frame>(subject, { ...command, cancelSubject }, rid, STREAM_IDLE_MS);
  const first = await frames.next();
  if (first.done || first.value.kind !== 'head') throw new Error('the message proxy sent no head');
  const head = first.value;
  reply.hijack();
  reply.raw.writeHead(head.status, {
    'content-type': head.contentType,
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': rid,
    'x-bastion-prompt-id': head.promptId,
  });
  let finished = false;
  reply.raw.on('close', () => {
    if (!finished) nc.publish(cancelSubject, '');
  });
  try {
    for await (const frame of frames) if (frame.kind === 'data') reply.raw.write(frame.data);
  } catch (err) {
    reply.raw.write(failure(err instanceof Error ? err.message : 'stream failed'));
  } finally {
    finished = true;
    reply.raw.end();
  }
}
