import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  type CreatePromptTemplateCommand,
  DomainError,
  type PromptRefCommand,
  type PromptTemplateView,
  type PromptView,
  type TemplateInput,
  type TemplateInputQuery,
} from '@bastion/contracts';
import { canSee, outOfScope } from '../access/access';
import { PROMPTS_CONFIG, type PromptsConfig } from '../config';
import { promptView, templateView } from '../prompts/prompt.mapper';
import { PromptRepository } from '../prompts/prompt.repository';
import { PromptService } from '../prompts/prompt.service';
import { TemplateRepository } from './template.repository';

/**
 * Prompt templates: a prompt kept for reuse. The proxy sends a prompt from one (it asks for the
 * input here) and records it with the template's id, which is how a template finds its prompts.
 */
@Injectable()
export class TemplateService {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly prompts: PromptService,
    private readonly promptRows: PromptRepository,
    @Inject(PROMPTS_CONFIG) private readonly config: PromptsConfig,
  ) {}

  async create({ principal, body }: CreatePromptTemplateCommand): Promise<{ promptTemplate: PromptTemplateView }> {
    const prompt = await this.prompts.mustFind(principal, body.promptId);
    const projectId = body.projectId ?? prompt.projectId;
    // A project-scoped caller found the prompt, so it is of the caller's project; another named is not found.
    if (principal.project && body.projectId !== undefined && body.projectId !== principal.project)
      throw outOfScope(body.projectId);
    const created = await this.templates.create({
      id: randomUUID(),
      tenant: principal.tenant,
      name: body.name,
      projectId,
      promptId: prompt.id,
      userId: principal.sub,
      input: prompt.input,
    });
    return { promptTemplate: templateView(created) };
  }

  async get({
    principal,
    id,
  }: PromptRefCommand): Promise<{ promptTemplate: PromptTemplateView; prompts: PromptView[] }> {
    const t = await this.templates.find(principal.tenant, id);
    if (!t || !canSee(principal, t.projectId)) throw DomainError.notFound(`prompt template ${id} not found`);
    const sent = await this.promptRows.fromTemplate(
      principal.tenant,
      t.id,
      principal.project,
      this.config.PROMPTS_TEMPLATE_PROMPTS_LIMIT,
    );
    return { promptTemplate: templateView(t), prompts: sent.map(promptView) };
  }

  /**
   * For the message proxy (over NATS): what a prompt sent from this template says. A template the
   * caller may not see (another project's, for a project-scoped caller) is not found, as with `get`.
   */
  async input({ tenant, templateId, project }: TemplateInputQuery): Promise<TemplateInput> {
    const t = await this.templates.find(tenant, templateId);
    if (!t || !canSee({ project }, t.projectId)) throw DomainError.notFound(`prompt template ${templateId} not found`);
    return { input: t.input, projectId: t.projectId };
  }
}
