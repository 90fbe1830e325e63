import { Injectable } from '@nestjs/common';
import { type TokenEvent, TokenEventContracts, type TokenState, type TokenStateChangedEvent } from '@bastion/contracts';
import { EventPublisher } from '@bastion/messaging';
import { sha256Hex } from '../domain/token-view';
import type { Token } from '../generated/prisma/client';

/** Builds and publishes the token events; each carries what a consumer needs to keep a view. */
@Injectable()
export class TokenEventPublisher {
  constructor(private readonly events: EventPublisher) {}

  created(t: Token): Promise<void> {
    return this.events.publish(TokenEventContracts.created, eventOf(t));
  }

  replaced(t: Token): Promise<void> {
    return this.events.publish(TokenEventContracts.replaced, eventOf(t));
  }

  deleted(t: Token): Promise<void> {
    return this.events.publish(TokenEventContracts.deleted, eventOf(t));
  }

  stateChanged(t: Token, previousState: TokenState): Promise<void> {
    const event: TokenStateChangedEvent = { ...eventOf(t), previousState };
    return this.events.publish(TokenEventContracts.stateChanged, event);
  }
}

function eventOf(t: Token): TokenEvent {
  return {
    uid: t.uid,
    tenant: t.tenant,
    namespace: t.namespace,
    name: t.name,
    state: t.state,
    disable: t.disable,
    type: t.type,
    contentHash: t.content ? sha256Hex(t.content) : '',
    siteName: t.siteName,
    expiresAt: t.expiresAt ? t.expiresAt.toISOString() : null,
    maxRegistrations: t.maxRegistrations,
    revision: t.revision,
    occurredAt: new Date().toISOString(),
  };
}
