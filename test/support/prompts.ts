import { randomUUID } from 'node:crypto';
import type { INestMicroservice } from '@nestjs/common';
import { type PromptRecordedEvent, PROMPTS_QUEUE, PROXY_STREAM_SPEC, ProxyEventContracts } from '@bastion/contracts';
import { ensureStream, EventPublisher } from '@bastion/messaging';
import { scannerResultRecord } from '@bastion/testing';
import type { NatsConnection } from '@nats-io/transport-node';
import { PromptsConfig, PromptsModule } from '../../apps/prompts/src';
import { startTestService } from './stack';

/** Starts one prompts-service instance on the test database and NATS (it starts storing records at once). */
export function startPromptsService(env: Record<string, string> = {}): Promise<INestMicroservice> {
  return startTestService(
    {
      service: 'prompts',
      queue: PROMPTS_QUEUE,
      config: PromptsConfig,
      module: (c, l, m) => PromptsModule.forRoot(c, l, m),
    },
    env,
  );
}

/** A finished prompt as the message proxy records it; override what a test cares about. */
export function promptRecord(tenant: string, over: Partial<PromptRecordedEvent> = {}): PromptRecordedEvent {
  const receivedAt = over.receivedAt ?? new Date().toISOString();
  return {
    id: randomUUID(),
    tenant,
    projectId: null,
    userId: 'user-1',
    provider: 'openai-prod',
    providerId: randomUUID(),
    input: 'What is the capital of France?',
    memory: [],
    extraInputs: {},
    externalMetadata: {},
    fromTemplate: false,
    templateId: null,
    parentId: null,
    preserve: false,
    type: 'prompt',
    source: 'vendor',
    receivedAt,
    result: {
      outcome: 'cleared',
      response: 'Paris.',
      files: [],
      providerResult: { data: '{"content":"Paris."}', statusCode: 200, sentDate: receivedAt, receivedDate: receivedAt },
      scannerResults: [
        scannerResultRecord({ scannerId: 'scanner-pii', startedDate: receivedAt, completedDate: receivedAt }),
      ],
    },
    ...over,
  } as PromptRecordedEvent;
}

/**
 * Publishes records to JetStream as the proxy does (message id = record id, so JetStream drops a
 * retried publish). `duplicate: true` gives each copy its own message id instead: the stream keeps
 * every copy, which is what a redelivery looks like to the store.
 */
export async function publishRecords(
  nc: NatsConnection,
  records: PromptRecordedEvent[],
  options: { duplicate?: boolean } = {},
): Promise<void> {
  await ensureStream(nc, PROXY_STREAM_SPEC);
  const publisher = new EventPublisher(nc);
  for (const r of records)
    await publisher.publish(ProxyEventContracts.promptRecorded, r, options.duplicate ? randomUUID() : r.id);
}
