import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  type Principal,
  type PromptOutcome,
  type PromptRecordedEvent,
  type PromptView,
  ProxyEventContracts,
  type ScannerResultRecord,
  recordedScannerResultView,
  scannerResultObject,
  scannerResultTuple,
} from '@bastion/contracts';
import { type EventGroups, EventPublisher } from '@bastion/messaging';
import type { Logger } from 'pino';
import { PROXY_CONFIG, PROXY_LOGGER, type ProxyConfig } from '../config';

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
 *
 * No answer without its record: `record()` resolves only once JetStream acknowledged the record
 * (it is then on the server's disk and the prompts service will store it), retrying through a NATS
 * outage for up to RECORD_BUDGET_MS. When that fails it throws UNAVAILABLE, so the caller answers
 * 503 rather than an answer whose record is lost. Under load, records finished while another one's
 * acknowledgement is awaited travel together in one message (EventGroups). A record larger than NATS's max_payload goes to
 * the JetStream object store, referenced from the stream.
 */
@Injectable()
export class PromptRecorder {
  private readonly records: EventGroups<PromptRecordedEvent>;

  constructor(
    events: EventPublisher,
    @Inject(PROXY_LOGGER) private readonly logger: Logger,
    @Inject(PROXY_CONFIG) private readonly config: ProxyConfig,
  ) {
    this.records = events.grouped(ProxyEventContracts.promptRecorded, config.RECORD_GROUP_MAX);
  }

  start(draft: PromptDraft): { id: string; receivedAt: Date; draft: PromptDraft } {
    return { id: randomUUID(), receivedAt: new Date(), draft };
  }

  /** Resolves once the record is durable; throws UNAVAILABLE (503) when it cannot be made so in time. */
  async record(
    started: { id: string; receivedAt: Date; draft: PromptDraft },
    parts: PromptOutcomeParts,
  ): Promise<PromptRecordedEvent> {
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
    // On the bus, each scanner result as a tuple (ScannerResultTuple: half the bytes of an object),
    // unless an upgrade still runs prompt stores that read only objects.
    const wire =
      this.config.RECORD_SCANNER_RESULTS_FORM === 'objects'
        ? event
        : { ...event, result: { ...event.result, scannerResults: parts.scannerResults.map(scannerResultTuple) } };
    try {
      await this.records.publishDurably(wire, event.id, this.config.RECORD_BUDGET_MS);
    } catch (err) {
      this.logger.error({ err, promptId: event.id }, 'could not make a prompt record durable; answering 503');
      throw err;
    }
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
      scannerResults: e.result.scannerResults.map((r) => recordedScannerResultView(scannerResultObject(r))),
    },
  };
}
