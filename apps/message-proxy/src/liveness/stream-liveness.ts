import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@bastion/contracts';
import { NATS_CONNECTION } from '@bastion/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { Observable } from 'rxjs';
import { PROXY_LOGGER } from '../config';
import { STREAM_HEARTBEAT_MS, STREAM_PEER_TIMEOUT_MS, type StreamFrame } from '../messages/stream-frame';

/**
 * Both ends of a stream know within ~2 s when the other is gone. Toward the gateway: a `ping`
 * frame merged into the stream every STREAM_HEARTBEAT_MS until it ends. From the gateway: its
 * heartbeats on `<cancelSubject>.alive`; after STREAM_PEER_TIMEOUT_MS without one the stream is
 * unsubscribed, which aborts the upstream call (the gateway, or its NATS link, died mid-stream).
 */
@Injectable()
export class StreamLiveness {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PROXY_LOGGER) private readonly logger: Logger,
  ) {}

  watch(
    cancelSubject: string | undefined,
    source: Observable<StreamFrame>,
    peerTimeoutMs = STREAM_PEER_TIMEOUT_MS,
  ): Observable<StreamFrame> {
    return new Observable<StreamFrame>((sub) => {
      let lastHeard = Date.now();
      const alive = cancelSubject
        ? this.nc.subscribe(`${cancelSubject}.alive`, { callback: () => void (lastHeard = Date.now()) })
        : undefined;
      const timer = setInterval(() => {
        if (alive && Date.now() - lastHeard > peerTimeoutMs) {
          this.logger.warn(
            { cancelSubject, silentMs: Date.now() - lastHeard },
            'the gateway stopped hearing this stream; stopping it',
          );
          sub.error(new DomainError(ErrorCode.UNAVAILABLE, 'the gateway went away'));
          return;
        }
        sub.next({ kind: 'ping' });
      }, STREAM_HEARTBEAT_MS);
      const inner = source.subscribe(sub);
      return () => {
        clearInterval(timer);
        alive?.unsubscribe();
        inner.unsubscribe();
      };
    });
  }
}
