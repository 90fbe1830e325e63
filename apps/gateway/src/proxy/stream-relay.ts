import { randomUUID } from 'node:crypto';
import {
  type MessagesCommand,
  type MessagesReply,
  ProxySignals,
  type ProxyStreams,
  STREAM_HEARTBEAT_MS,
  STREAM_PEER_TIMEOUT_MS,
} from '@bastion/contracts';
import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsRpcClient, Wire } from '@bastion/messaging';
import type { FastifyReply } from 'fastify';
import { remoteTimings, serverTimingHeader, splitRoundTrip, type PhaseTimings } from '../timing/server-timing';

/**
 * Relays a streamed exchange of the message proxy to the client: NATS replies in, the HTTP body
 * out. Until the head arrives nothing is sent, so an early error (a block, an unknown provider, a
 * limit) still leaves as an ordinary error with its status. After that the proxy's frames are
 * written as they come; `failure` writes a transport failure in the route's dialect. Both sides
 * beat: the proxy sends a ping frame every STREAM_HEARTBEAT_MS however slow the model, so silence
 * for STREAM_PEER_TIMEOUT_MS means it is gone and the stream ends with an error; the gateway
 * publishes on `<cancelSubject>.alive` as long as it relays, so the proxy can tell it is gone too.
 */
export async function relayStream(
  rpc: NatsRpcClient,
  nc: NatsConnection,
  contract: (typeof ProxyStreams)[keyof typeof ProxyStreams],
  command: Omit<Wire<MessagesCommand>, 'cancelSubject'>,
  rid: string,
  reply: FastifyReply,
  failure: (message: string) => string,
  timing?: { timings: PhaseTimings; started: number },
): Promise<void> {
  const cancelSubject = ProxySignals.cancel.subject(randomUUID());
  const heartbeat = setInterval(() => nc.publish(`${cancelSubject}.alive`, ''), STREAM_HEARTBEAT_MS);
  const frames = rpc.stream(contract, { ...command, cancelSubject }, rid, STREAM_PEER_TIMEOUT_MS);
  try {
    let first = await frames.next();
    while (!first.done && first.value.kind === 'ping') first = await frames.next();
    if (first.done || first.value.kind !== 'head') throw new Error('the message proxy sent no head');
    const head = first.value;
    // The phases up to the head: what follows the head cannot be reported in a header.
    let serverTiming: string | undefined;
    if (timing) {
      Object.assign(timing.timings, splitRoundTrip(performance.now() - timing.started, remoteTimings(head.timing)));
      serverTiming = serverTimingHeader(timing.timings);
    }
    reply.hijack();
    reply.raw.writeHead(head.status, {
      ...(serverTiming ? { 'server-timing': serverTiming } : {}),
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
  } finally {
    clearInterval(heartbeat);
    // Ends the call when it stopped before its last frame (no head): its inbox entry is freed.
    void frames.return(undefined);
  }
}

/** A proxied answer: its JSON text as the proxy wrote it, with the prompt's id. */
export function sendJson(reply: FastifyReply, res: MessagesReply): void {
  void reply
    .status(res.status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('x-bastion-prompt-id', res.promptId)
    .send(res.body);
}
