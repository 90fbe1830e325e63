import 'reflect-metadata';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import {
  CreateTokenCommand,
  GetTokenCommand,
  type Principal,
  ProxyStreams,
  type StreamFrame,
  type TokenCreateResponse,
  type TokenGetResponse,
  type TokenListResponse,
  TokenEventContracts,
  type TokenEvent,
  TokenRpc,
  TokenSubjects,
} from '@bastion/contracts';
import { Observable } from 'rxjs';
import type { EventPublisher } from '../jetstream/event-publisher';
import { Handles } from './handles';
import type { NatsRpcClient } from './rpc-client';

/*
 * The contracts are checked by the compiler: `pnpm typecheck` compiles this file, and each
 * `@ts-expect-error` below fails the typecheck if its line stops being an error. Jest runs the part
 * that has a runtime effect (the decorator registers the subject).
 */

const principal: Principal = { sub: 'u', tenant: 't', roles: ['admin'] };

/**
 * Calls as the gateway makes them. Never run: only compiled. Each expected error stays on one line
 * (`prettier-ignore`), since `@ts-expect-error` covers only the line below it.
 */
export async function typedCalls(rpc: NatsRpcClient, events: EventPublisher): Promise<void> {
  const created: TokenCreateResponse = await rpc.call(
    TokenRpc.create,
    { principal, namespace: 'system', body: { metadata: { name: 'a' } } },
    'r',
  );
  void created;

  // prettier-ignore
  // @ts-expect-error a payload missing a required field (namespace)
  await rpc.call(TokenRpc.create, { principal, body: { metadata: { name: 'a' } } }, 'r');

  // prettier-ignore
  // @ts-expect-error a payload of another subject (GetTokenCommand on the create subject)
  await rpc.call(TokenRpc.create, { principal, namespace: 'system', name: 'a', responseFormat: 'GET_RSP_FORMAT_DEFAULT' } satisfies GetTokenCommand, 'r');

  // prettier-ignore
  // @ts-expect-error the reply read as another subject's reply (a create answer has no status)
  const wrong: TokenGetResponse = await rpc.call(TokenRpc.create, { principal, namespace: 'system', body: { metadata: { name: 'a' } } }, 'r');
  void wrong;

  // prettier-ignore
  // @ts-expect-error a bare subject string is no contract
  await rpc.call(TokenSubjects.create, {}, 'r');

  // prettier-ignore
  // @ts-expect-error the untyped request is not callable from outside the client
  await rpc.request(TokenSubjects.create, {}, 'r');

  for await (const frame of rpc.stream(
    ProxyStreams.messages,
    { principal, provider: 'p', rawBody: '{}', headers: {} },
    'r',
    1000,
  )) {
    const typed: StreamFrame = frame;
    // prettier-ignore
    // @ts-expect-error frames are StreamFrames, not strings
    const text: string = frame;
    void typed;
    void text;
  }

  const event = {} as TokenEvent;
  await events.publish(TokenEventContracts.created, event);
  // prettier-ignore
  // @ts-expect-error a token event is no admission event
  events.notify(TokenEventContracts.siteAdmitted, event);
}

class TokenHandlers {
  @Handles(TokenRpc.create)
  create(_cmd: CreateTokenCommand): Promise<TokenCreateResponse> {
    return Promise.resolve({} as TokenCreateResponse);
  }

  // prettier-ignore
  // @ts-expect-error the handler takes another subject's payload
  @Handles(TokenRpc.create)
  createFromGet(_cmd: GetTokenCommand): Promise<TokenCreateResponse> {
    return Promise.resolve({} as TokenCreateResponse);
  }

  // prettier-ignore
  // @ts-expect-error the handler answers with another subject's reply
  @Handles(TokenRpc.create)
  createAnsweringList(_cmd: CreateTokenCommand): Promise<TokenListResponse> {
    return Promise.resolve({} as TokenListResponse);
  }

  @Handles(ProxyStreams.messages)
  frames(): Observable<StreamFrame> {
    return new Observable<StreamFrame>();
  }

  // prettier-ignore
  // @ts-expect-error a stream handler must emit the stream's frames
  @Handles(ProxyStreams.messages)
  strings(): Observable<string> {
    return new Observable<string>();
  }
}

describe('typed contracts', () => {
  it("registers a handler on its contract's subject", () => {
    expect(Reflect.getMetadata(PATTERN_METADATA, TokenHandlers.prototype.create)).toEqual([TokenSubjects.create]);
    expect(Reflect.getMetadata(PATTERN_METADATA, TokenHandlers.prototype.frames)).toEqual([
      ProxyStreams.messages.subject,
    ]);
  });
});
