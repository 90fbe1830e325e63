import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, type MessagesCommand, type MessagesReply, type ScannerResultRecord } from '@bastion/contracts';
import { NATS_CONNECTION } from '@bastion/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import { Observable } from 'rxjs';
import { blockMessage, caiError, GuardedExchange } from './guarded-exchange';
import type { StreamFrame } from './stream-frame';

/**
 * `POST /vendor/{provider}/v1/messages` over the guarded exchange. A block is a 400 in Anthropic's
 * error shape carrying `cai_error` (in a stream already under way: an `error` event).
 */
@Injectable()
export class MessagesService {
  constructor(
    private readonly exchange: GuardedExchange,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  async create(cmd: MessagesCommand): Promise<MessagesReply> {
    const result = await this.exchange.call({ principal: cmd.principal, provider: cmd.provider, body: cmd.body, headers: cmd.headers, source: 'vendor' });
    if (result.kind === 'blocked') throw blocked(result.direction, result.results, result.messages);
    return { status: result.status, body: result.body, promptId: result.record.id, timing: result.timing };
  }

  /** The same exchange with `stream: true`: frames of Anthropic's SSE, released as the guard allows. */
  stream(cmd: MessagesCommand): Observable<StreamFrame> {
    return new Observable<StreamFrame>((sub) => {
      const abort = new AbortController();
      const cancel = cmd.cancelSubject ? this.nc.subscribe(cmd.cancelSubject, { max: 1, callback: () => abort.abort() }) : undefined;
      let headSent = false;
      const emit = (frame: StreamFrame) => {
        if (frame.kind === 'head') headSent = true;
        if (!sub.closed) sub.next(frame);
      };
      this.exchange
        .stream({ principal: cmd.principal, provider: cmd.provider, body: cmd.body, headers: cmd.headers, source: 'vendor' }, emit, abort.signal)
        .then((result) => {
          // A block before the head is an ordinary error answer; after it the stream already carries an error event.
          if (result.kind === 'blocked' && !headSent) sub.error(blocked(result.direction, result.results, result.messages));
          else sub.complete();
        })
        .catch((err: unknown) => sub.error(err));
      return () => {
        cancel?.unsubscribe();
        abort.abort();
      };
    });
  }
}

export function blocked(direction: 'request' | 'response', results: ScannerResultRecord[], messages: string[]): DomainError {
  return new DomainError(ErrorCode.INVALID_ARGUMENT, blockMessage(direction, messages), [], undefined, { cai_error: caiError(results) });
}
