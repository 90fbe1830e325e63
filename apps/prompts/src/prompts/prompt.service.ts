import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_PAGE_SIZE,
  DomainError,
  type ListPromptsCommand,
  type Page,
  type Principal,
  type PromptRecordedEvent,
  type PromptRefCommand,
  type PromptView,
  type StoredScanView,
} from '@bastion/contracts';
import { decodeCursor, paginate } from '@bastion/persistence';
import type { Logger } from 'pino';
import { canSee, projectScope } from '../access/access';
import { PROMPTS_CONFIG, PROMPTS_LOGGER, type PromptsConfig } from '../config';
import type { Prompt } from '../generated/prisma/client';
import { parsePromptFilters } from './prompt-filters';
import { promptRow, promptView, scanView } from './prompt.mapper';
import { PromptRepository } from './prompt.repository';

/** The prompt store: records from the proxy in, exactly once; reads within the caller's tenant and project. */
@Injectable()
export class PromptService {
  constructor(
    private readonly prompts: PromptRepository,
    @Inject(PROMPTS_LOGGER) private readonly logger: Logger,
    @Inject(PROMPTS_CONFIG) private readonly config: PromptsConfig,
  ) {}

  /**
   * Stores one record. A redelivered record (same id) is already there and is skipped; a database
   * error throws, so the event is not acknowledged and JetStream delivers it again.
   */
  async record(event: PromptRecordedEvent): Promise<void> {
    const stored = await this.prompts.insertOnce(promptRow(event, this.config.PROMPTS_SCANNER_RESULTS_FORM));
    if (!stored) this.logger.debug({ id: event.id }, 'prompt record already stored');
  }

  /** Stores many records in one statement; those already stored are skipped. */
  async recordMany(events: PromptRecordedEvent[]): Promise<void> {
    const form = this.config.PROMPTS_SCANNER_RESULTS_FORM;
    await this.prompts.insertManyOnce(events.map((e) => promptRow(e, form)));
  }

  async list({ principal, limit, cursor, ...raw }: ListPromptsCommand): Promise<Page<'prompts', PromptView>> {
    const filter = parsePromptFilters(raw);
    filter.projectId = projectScope(principal, filter.projectId);
    const size = limit ?? DEFAULT_PAGE_SIZE;
    const c = cursor ? decodeCursor(cursor) : undefined;
    const rows = await this.prompts.page(principal.tenant, filter, size, c);
    const page = paginate(
      rows.map((row) => ({ createdAt: row.receivedAt, id: row.id, row })),
      size,
      c,
    );
    return { prompts: page.items.map((i) => promptView(i.row)), next: page.next, prev: page.prev };
  }

  async get({ principal, id }: PromptRefCommand): Promise<{ prompt: PromptView }> {
    return { prompt: promptView(await this.mustFind(principal, id)) };
  }

  /** A stored scan; a prompt that is not a scan is 404 here, as is one the principal may not see. */
  async getScan({ principal, id }: PromptRefCommand): Promise<{ scan: StoredScanView }> {
    const p = await this.prompts.find(principal.tenant, id);
    if (!p || p.type !== 'scan' || !canSee(principal, p.projectId)) throw DomainError.notFound(`scan ${id} not found`);
    return { scan: scanView(p) };
  }

  /** A prompt the principal may see; anything else (another tenant's, another project's) is 404. */
  async mustFind(principal: Principal, id: string): Promise<Prompt> {
    const p = await this.prompts.find(principal.tenant, id);
    if (!p || !canSee(principal, p.projectId)) throw DomainError.notFound(`prompt ${id} not found`);
    return p;
  }
}
