import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  type Principal,
  type PromptOutcome,
  type PromptRecordedEvent,
  type PromptView,
  ProxyEventContracts,
  type ScannerResultRecord,
} from '@bastion/contracts';
import { EventPublisher } from '@bastion/platform';
import type { Logger } from 'pino';
import { PROXY_LOGGER } from '../config';

export interface PromptDraft {
  principal: Principal;
  projectId: string | null;
  provider: string;
  providerId: string | null;
  input: string;
  memory?: string[];
  externalMetadata?: Record<string, unknown>;
  templateId?: string | null;
  type: 'prompt' | 'scan';
  source: PromptRecordedEvent['source'];
}

export interface PromptOutcomeParts {
  outcome: PromptOutcome;
  response: string | null;
  providerResult: { data: string; statusCode: number; sentDate: Date; receivedDate: Date } | null;
  scannerResults: ScannerResultRecord[];
}

/**
 * Every finished prompt becomes one `proxy.prompt.recorded.v1` on JetStream, keyed by its id (the
 * stream's message id too, so a retried publish is stored once). The prompts service stores it;
 * while that service is down the record waits in the stream.
 */
@Injectable()
export class PromptRecorder {
  constructor(
    private readonly events: EventPublisher,
    @Inject(PROXY_LOGGER) private readonly logger: Logger,
  ) {}

  start(draft: PromptDraft): { id: string; receivedAt: Date; draft: PromptDraft } {
    return { id: randomUUID(), receivedAt: new Date(), draft };
  }

  /**
   * Publishes the record without holding the caller's answer for the stream's ack: either way a
   * failed publish can only be logged, and the ack round trip sat on every request's latency.
   */
  async record(started: { id: string; receivedAt: Date; draft: PromptDraft }, parts: PromptOutcomeParts): Promise<PromptRecordedEvent> {
    const d = started.draft;
    const event: PromptRecordedEvent = {
      id: started.id,
      tenant: d.principal.tenant,
      projectId: d.projectId,
      userId: d.principal.sub,
      provider: d.provider,
      providerId: d.providerId,
      input: d.input,
      memory: d.memory ?? [],
      extraInputs: {},
      externalMetadata: d.externalMetadata ?? {},
      fromTemplate: Boolean(d.templateId),
      templateId: d.templateId ?? null,
      parentId: null,
      preserve: false,
      type: d.type,
      source: d.source,
      receivedAt: started.receivedAt.toISOString(),
      result: {
        outcome: parts.outcome,
        response: parts.response,
        files: [],
        providerResult: parts.providerResult && {
          data: parts.providerResult.data,
          statusCode: parts.providerResult.statusCode,
          sentDate: parts.providerResult.sentDate.toISOString(),
          receivedDate: parts.providerResult.receivedDate.toISOString(),
        },
        scannerResults: parts.scannerResults,
      },
    };
    this.events.publish(ProxyEventContracts.promptRecorded, event, event.id).catch((err: unknown) => {
      // Retried once: the message id makes JetStream store it once even if the first one landed.
      this.events.publish(ProxyEventContracts.promptRecorded, event, event.id).catch(() => {
        this.logger.error({ err, promptId: event.id }, 'could not publish a prompt record');
      });
    });
    return event;
  }
}

/** The Prompt as the API shows it (what the prompts service will store). */
export function promptView(e: PromptRecordedEvent): PromptView {
  return {
    id: e.id,
    parentId: e.parentId,
    projectId: e.projectId,
    userId: e.userId,
    provider: e.provider,
    input: e.input,
    memory: e.memory,
    extraInputs: e.extraInputs,
    externalMetadata: e.externalMetadata,
    fromTemplate: e.fromTemplate,
    preserve: e.preserve,
    receivedAt: e.receivedAt,
    type: e.type,
    result: {
      outcome: e.result.outcome,
      response: e.result.response,
      files: e.result.files,
      providerResult: e.result.providerResult,
      scannerResults: e.result.scannerResults.map((r) => ({ ...r, scannerVersionMeta: r.scannerVersionMeta ?? null })),
    },
  };
}
