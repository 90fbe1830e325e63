import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { checkPromptRecord, type PromptRecordedEvent, ProxyEventContracts } from '@bastion/contracts';
import { consumes, DurableConsumer, NATS_CONNECTION } from '@bastion/messaging';
import { PlatformMetrics } from '@bastion/observability';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { PROMPTS_LOGGER } from '../config';
import { PromptService } from '../prompts/prompt.service';

/** The durable the server keeps the store's position under while every replica is away. */
export const PROMPTS_STORE_DURABLE = 'prompts-store';

/**
 * Stores the proxy's prompt records from JetStream. Each record is acknowledged only once its row
 * is in Postgres: records published while this service was stopped wait in the stream and arrive
 * when it starts (the durable starts at the stream's first record the very first time); a failed
 * insert is retried. Replicas share the one durable, so each record goes to one of them.
 */
@Injectable()
export class PromptRecordConsumer implements OnModuleInit, OnModuleDestroy {
  private consumer?: DurableConsumer<PromptRecordedEvent>;

  private readonly parked;

  constructor(
    private readonly prompts: PromptService,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PROMPTS_LOGGER) private readonly logger: Logger,
    metrics: PlatformMetrics,
  ) {
    this.parked = metrics.counter(
      'bastion_prompt_records_parked_total',
      'Prompt records no longer delivered after their insert failed again and again (kept in the stream for replay)',
      [],
    );
  }

  async onModuleInit(): Promise<void> {
    this.consumer = await DurableConsumer.start(this.nc, {
      ...consumes(ProxyEventContracts.promptRecorded),
      durable: PROMPTS_STORE_DURABLE,
      startAt: 'all',
      logger: this.logger,
      // The records come from the message proxy: checked by type in one pass, not by class-validator.
      check: checkPromptRecord,
      handler: (event) => this.prompts.record(event),
      onParked: () => this.parked.inc(),
      // One INSERT for many records: at proxy rates, one statement per record cost more than the rest.
      batch: { handler: (events) => this.prompts.recordMany(events), size: 200, waitMs: 10 },
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.consumer?.stop();
  }
}
