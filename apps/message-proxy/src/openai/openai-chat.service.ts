import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, type MessagesCommand } from '@bastion/contracts';
import { NATS_CONNECTION } from '@bastion/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import { Observable } from 'rxjs';
import { isObject } from '../anthropic/content';
import { blockMessage, caiError, GuardedExchange, type StreamDialect } from '../messages/guarded-exchange';
import type { StreamFrame } from '../messages/stream-frame';
import { ChatChunkStream, chatToMessages, messageToChat, openAiError } from './chat-translation';

/**
 * `POST /openai/{provider}/chat/completions`: OpenAI's Chat Completions API over the same guarded
 * exchange as the Anthropic route (same guardrails, limits and records). A block is a 400 in
 * OpenAI's error shape carrying the scanner results (in a stream under way: an error chunk).
 */
@Injectable()
export class OpenAiChatService {
  constructor(
    private readonly exchange: GuardedExchange,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  async create(cmd: MessagesCommand): Promise<{ status: number; body: unknown; promptId: string }> {
    const model = String(cmd.body.model ?? '');
    const result = await this.exchange.call({ principal: cmd.principal, provider: cmd.provider, body: chatToMessages(cmd.body), headers: {}, source: 'openai' });
    if (result.kind === 'blocked') throw blocked(result.direction, result.results, result.messages);
    const body = isObject(result.body) && result.status === 200 ? messageToChat(result.body, model) : errorBody(result.body);
    return { status: result.status, body, promptId: result.record.id };
  }

  stream(cmd: MessagesCommand): Observable<StreamFrame> {
    return new Observable<StreamFrame>((sub) => {
      const abort = new AbortController();
      const cancel = cmd.cancelSubject ? this.nc.subscribe(cmd.cancelSubject, { max: 1, callback: () => abort.abort() }) : undefined;
      const options = isObject(cmd.body.stream_options) ? cmd.body.stream_options : {};
      const chunks = new ChatChunkStream(String(cmd.body.model ?? ''), options.include_usage === true);
      const dialect: StreamDialect = { event: (e) => chunks.event(e), errorBody: errorBody };
      let headSent = false;
      const emit = (frame: StreamFrame) => {
        if (frame.kind === 'head') headSent = true;
        if (!sub.closed) sub.next(frame);
      };
      Promise.resolve()
        .then(() => chatToMessages(cmd.body))
        .then((body) => this.exchange.stream({ principal: cmd.principal, provider: cmd.provider, body, headers: {}, source: 'openai', dialect }, emit, abort.signal))
        .then((result) => {
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

function blocked(direction: 'request' | 'response', results: Parameters<typeof caiError>[0], messages: string[]): DomainError {
  return new DomainError(ErrorCode.INVALID_ARGUMENT, blockMessage(direction, messages), [], undefined, { cai_error: caiError(results) });
}

/** A provider's error answer (Anthropic's shape) in OpenAI's. */
function errorBody(body: unknown): unknown {
  const err = isObject(body) && isObject(body.error) ? body.error : {};
  return { error: openAiError(String(err.message ?? 'the provider failed'), String(err.type ?? 'api_error')) };
}
