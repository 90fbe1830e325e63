import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  PromptRpc,
  type PromptView,
  type ScanCommand,
  type SendPromptCommand,
  type TemplateInput,
} from '@bastion/contracts';
import { NatsRpcClient, requestContext } from '@bastion/platform';
import { responseText } from '../anthropic/anthropic-format';
import { worstOutcome } from '../guard/run-guardrails';
import { promptView, PromptRecorder } from '../records/prompt-recorder';
import { ANTHROPIC_TYPE, UpstreamService } from '../upstream/upstream.service';
import { ExchangeContext } from './exchange-context';

/**
 * The backend's own entry points to the same guarded path: `POST /backend/v1/prompts` sends one
 * prompt through a provider and answers the recorded Prompt (a block is an outcome, not an
 * error); `POST /backend/v1/scans` runs a project's scanners on a text, with no model call.
 */
@Injectable()
export class PromptApiService {
  constructor(
    private readonly context: ExchangeContext,
    private readonly upstream: UpstreamService,
    private readonly recorder: PromptRecorder,
    private readonly rpc: NatsRpcClient,
  ) {}

  async send({ principal, body }: SendPromptCommand): Promise<PromptView> {
    const fromTemplate = body.promptTemplateId ? await this.templateInput(principal.tenant, body.promptTemplateId) : undefined;
    const input = body.input ?? fromTemplate?.input;
    if (input === undefined) {
      throw DomainError.invalid('give input or promptTemplateId', [{ loc: ['body', 'input'], msg: 'input or promptTemplateId is required', type: 'missing' }]);
    }
    const exchange = await this.context.open(principal, body.provider, body.project ?? fromTemplate?.projectId ?? undefined);
    const provider = exchange.provider!;
    const started = this.recorder.start({
      principal,
      projectId: exchange.project.project.id,
      provider: provider.name,
      providerId: provider.id,
      input,
      externalMetadata: body.externalMetadata,
      templateId: body.promptTemplateId ?? null,
      type: 'prompt',
      source: 'prompts',
    });
    const request = exchange.scan(input, 'request');
    if (request.outcome === 'blocked') {
      return promptView(await this.recorder.record(started, { outcome: 'blocked', response: null, providerResult: null, scannerResults: request.results }));
    }
    let text: string;
    let providerResult: { data: string; statusCode: number; sentDate: Date; receivedDate: Date };
    try {
      if (provider.type === ANTHROPIC_TYPE) {
        const res = await this.upstream.anthropic(
          provider,
          { model: provider.inputs.model, max_tokens: Number(provider.inputs.maxTokens) || 1024, messages: [{ role: 'user', content: request.text }] },
          {},
        );
        providerResult = { data: res.body, statusCode: res.status, sentDate: res.sentAt, receivedDate: res.receivedAt };
        text = res.status < 400 ? responseText(JSON.parse(res.body)) : '';
      } else {
        const result = await this.upstream.viaTemplate(provider, request.text, [{ role: 'user', content: request.text }]);
        providerResult = { data: result.response?.body ?? '', statusCode: result.statusCode ?? 0, sentDate: result.sentAt, receivedDate: result.receivedAt ?? new Date() };
        text = result.content ?? '';
      }
    } catch (err) {
      await this.recorder.record(started, { outcome: request.outcome, response: null, providerResult: null, scannerResults: request.results });
      throw err;
    }
    if (providerResult.statusCode >= 400) {
      return promptView(await this.recorder.record(started, { outcome: request.outcome, response: null, providerResult, scannerResults: request.results }));
    }
    const response = exchange.scan(text, 'response');
    const results = [...request.results, ...response.results];
    const outcome = worstOutcome(request.outcome, response.outcome);
    const delivered = response.outcome === 'blocked' ? null : response.text;
    return promptView(await this.recorder.record(started, { outcome, response: delivered, providerResult, scannerResults: results }));
  }

  async scan({ principal, body }: ScanCommand): Promise<PromptView> {
    const exchange = await this.context.open(principal, null, body.project);
    const started = this.recorder.start({
      principal,
      projectId: exchange.project.project.id,
      provider: '',
      providerId: null,
      input: body.input,
      type: 'scan',
      source: 'scans',
    });
    const run = exchange.scan(body.input, body.scanDirection);
    const redacted = run.outcome === 'redacted' ? run.text : null;
    return promptView(await this.recorder.record(started, { outcome: run.outcome, response: redacted, providerResult: null, scannerResults: run.results }));
  }

  private async templateInput(tenant: string, templateId: string): Promise<TemplateInput> {
    try {
      return await this.rpc.call(PromptRpc.templateInput, { tenant, templateId }, requestContext.getStore()?.requestId ?? 'proxy');
    } catch (err) {
      if (err instanceof DomainError && err.code === ErrorCode.NOT_FOUND) throw DomainError.notFound(`prompt template ${templateId} not found`);
      throw err;
    }
  }
}
