import { Inject, Injectable } from '@nestjs/common';
import { ChatCompletionRequest, ChatMessage, type MessagesCommand, type MessagesReply } from '@bastion/contracts';
import { NATS_CONNECTION } from '@bastion/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Observable } from 'rxjs';
import { isObject } from '../anthropic/content';
import { blockedError, GuardedExchange, type StreamDialect, streamedExchange } from '../messages/guarded-exchange';
import { readRequestBody } from '../messages/request-body';
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

  async create(cmd: MessagesCommand): Promise<MessagesReply> {
    const chat = chatBody(cmd);
    const model = String(chat.model ?? '');
    const result = await this.exchange.call({
      principal: cmd.principal,
      provider: cmd.provider,
      body: chatToMessages(chat),
      headers: {},
      source: 'openai',
    });
    if (result.kind === 'blocked') throw blockedError(result.direction, result.results, result.messages);
    const body =
      isObject(result.body) && result.status === 200 ? messageToChat(result.body, model) : errorBody(result.body);
    return { status: result.status, body: JSON.stringify(body), promptId: result.record.id };
  }

  stream(cmd: MessagesCommand): Observable<StreamFrame> {
    return streamedExchange(this.nc, cmd.cancelSubject, (emit, signal) => {
      const chat = chatBody(cmd);
      const options = isObject(chat.stream_options) ? chat.stream_options : {};
      const chunks = new ChatChunkStream(String(chat.model ?? ''), options.include_usage === true);
      const dialect: StreamDialect = { event: (e) => chunks.event(e), errorBody };
      return this.exchange.stream(
        {
          principal: cmd.principal,
          provider: cmd.provider,
          body: chatToMessages(chat),
          headers: {},
          source: 'openai',
          dialect,
        },
        emit,
        signal,
      );
    });
  }
}

/** The command's body, parsed and checked as a Chat Completions request. */
function chatBody(cmd: MessagesCommand): Record<string, unknown> {
  return readRequestBody(cmd.rawBody, ChatCompletionRequest, { field: 'messages', element: ChatMessage });
}

/** A provider's error answer (Anthropic's shape) in OpenAI's. */
function errorBody(body: unknown): unknown {
  const err = isObject(body) && isObject(body.error) ? body.error : {};
  return { error: openAiError(String(err.message ?? 'the provider failed'), String(err.type ?? 'api_error')) };
}
