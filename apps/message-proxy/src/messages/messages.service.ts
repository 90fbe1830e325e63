import { Inject, Injectable } from '@nestjs/common';
import {
  AnthropicMessage,
  type MessagesCommand,
  type MessagesReply,
  MessagesRequest,
  meetsMessagesRequest,
} from '@bastion/contracts';
import { NATS_CONNECTION } from '@bastion/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Observable } from 'rxjs';
import { blockedError, GuardedExchange, streamedExchange } from './guarded-exchange';
import { readRequestBody } from './request-body';
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
    const result = await this.exchange.call({
      principal: cmd.principal,
      provider: cmd.provider,
      body: messagesBody(cmd),
      headers: cmd.headers,
      source: 'vendor',
    });
    if (result.kind === 'blocked') throw blockedError(result.direction, result.results, result.messages);
    return { status: result.status, body: result.json, promptId: result.record.id, timing: result.timing };
  }

  /** The same exchange with `stream: true`: frames of Anthropic's SSE, released as the guard allows. */
  stream(cmd: MessagesCommand): Observable<StreamFrame> {
    return streamedExchange(this.nc, cmd.cancelSubject, (emit, signal) =>
      this.exchange.stream(
        {
          principal: cmd.principal,
          provider: cmd.provider,
          body: messagesBody(cmd),
          headers: cmd.headers,
          source: 'vendor',
        },
        emit,
        signal,
      ),
    );
  }
}

/** The command's body, parsed and checked as a Messages API request. */
function messagesBody(cmd: MessagesCommand): Record<string, unknown> {
  return readRequestBody(cmd.rawBody, MessagesRequest, {
    field: 'messages',
    element: AnthropicMessage,
    meets: meetsMessagesRequest,
  });
}
