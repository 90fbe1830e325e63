import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { TOKENS_STREAM, TokenEvent, TokenEvents } from '@bastion/contracts';
import { NATS_CONNECTION } from '@bastion/messaging';
import { DeliverPolicy, jetstream, type ConsumerMessages } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { Logger } from 'pino';
import type { AdmissionToken } from '../domain/admission-rules';
import { sha256Hex, TokenView } from '../domain/token-view';
import type { Token } from '../generated/prisma/client';
import { TOKENS_LOGGER } from '../logger';
import { TokenRepository } from './token.repository';

export function admissionTokenOf(t: Token): AdmissionToken {
  return {
    uid: t.uid,
    tenant: t.tenant,
    namespace: t.namespace,
    name: t.name,
    state: t.state,
    disable: t.disable,
    type: t.type,
    siteName: t.siteName,
    contentHash: t.content ? sha256Hex(t.content) : '',
    expiresAt: t.expiresAt,
    maxRegistrations: t.maxRegistrations,
    usedRegistrations: t.usedRegistrations,
    revision: t.revision,
  };
}

function admissionTokenOfEvent(e: TokenEvent): AdmissionToken {
  return {
    uid: e.uid,
    tenant: e.tenant,
    namespace: e.namespace,
    name: e.name,
    state: e.state,
    disable: e.disable,
    type: e.type,
    siteName: e.siteName,
    contentHash: e.contentHash,
    expiresAt: e.expiresAt ? new Date(e.expiresAt) : null,
    maxRegistrations: e.maxRegistrations ?? null,
    // Counts are enforced in Postgres; the view needs only whether the limit was reached, which
    // the token's state (EXPIRED when exhausted) already tells.
    usedRegistrations: 0,
    revision: e.revision,
  };
}

/**
 * Keeps this replica's TokenView current. It subscribes to the token events first (an ordered
 * JetStream consumer from "now"), then loads every token from Postgres, then applies what arrived
 * meanwhile: revisions make the overlap harmless, so no change made on any replica is missed.
 */
@Injectable()
export class TokenViewSync implements OnModuleInit, OnModuleDestroy {
  readonly view = new TokenView();
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;

  constructor(
    private readonly tokens: TokenRepository,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(TOKENS_LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    const consumer = await jetstream(this.nc).consumers.get(TOKENS_STREAM, {
      filter_subjects: 'tokens.token.>',
      deliver_policy: DeliverPolicy.New,
    });
    this.messages = await consumer.consume();
    const buffered: { subject: string; data: unknown }[] = [];
    let warm = false;
    this.loop = (async () => {
      for await (const m of this.messages!) {
        const item = { subject: m.subject, data: m.json<unknown>() };
        if (warm) this.applyEvent(item.subject, item.data);
        else buffered.push(item);
      }
    })();
    for (const t of await this.tokens.all()) this.view.upsert(admissionTokenOf(t));
    warm = true;
    for (const item of buffered.splice(0)) this.applyEvent(item.subject, item.data);
    this.logger.info({ tokens: this.view.size }, 'admission view warmed');
  }

  async onModuleDestroy(): Promise<void> {
    await this.messages?.close();
    await this.loop;
  }

  /** Applies a change made by this replica at once, before its event comes back. */
  applyLocal(token: Token): void {
    this.view.upsert(admissionTokenOf(token));
  }

  removeLocal(uid: string): void {
    this.view.remove(uid);
  }

  private applyEvent(subject: string, data: unknown): void {
    const event = plainToInstance(TokenEvent, data);
    if (validateSync(event).length > 0) {
      this.logger.warn({ subject }, 'ignoring malformed token event');
      return;
    }
    if (subject === TokenEvents.deleted) this.view.remove(event.uid);
    else this.view.upsert(admissionTokenOfEvent(event));
  }
}
