import { Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  type Principal,
  PromptRpc,
  type PromptView,
  type ScanCommand,
  type ScanView,
  type SendPromptCommand,
  type TemplateInput,
} from '@bastion/contracts';
import { maskSpans } from '@bastion/guardrails';
import { NatsRpcClient } from '@bastion/messaging';
import { requestContext } from '@bastion/observability';
import { type GuardSummary, worstOutcome } from '../guard/direction-guard';
import { promptView, PromptRecorder } from '../records/prompt-recorder';
import { ExchangeContext, namesProject } from './exchange-context';
import { GuardedExchange } from './guarded-exchange';
import { Recording } from './recording';

/**
 * The backend's own entry points to the guarded path: `POST /backend/v1/prompts` sends one prompt
 * through a provider and answers the recorded Prompt (a block is an outcome, not an error);
 * `POST /backend/v1/scans` runs a project's scanners on a text, with no model call.
 */
@Injectable()
export class PromptApiService {
  constructor(
    private readonly exchange: GuardedExchange,
    private readonly context: ExchangeContext,
    private readonly recorder: PromptRecorder,
    private readonly rpc: NatsRpcClient,
  ) {}

  async send({ principal, body }: SendPromptCommand): Promise<PromptView> {
    const fromTemplate = body.promptTemplateId
      ? await this.templateInput(principal, body.promptTemplateId, body.project)
      : undefined;
    const input = body.input ?? fromTemplate?.input;
    if (input === undefined) {
      throw DomainError.invalid('give input or promptTemplateId', [
        { loc: ['body', 'input'], msg: 'input or promptTemplateId is required', type: 'missing' },
      ]);
    }
    const result = await this.exchange.call({
      principal,
      provider: body.provider,
      project: body.project ?? fromTemplate?.projectId ?? undefined,
      // The provider's own model and token limit fill in what a backend prompt does not say.
      body: { messages: [{ role: 'user', content: input }] },
      headers: {},
      source: 'prompts',
      externalMetadata: body.externalMetadata,
      templateId: body.promptTemplateId ?? null,
    });
    return promptView(result.record);
  }

  /**
   * Scans one text in one direction (the request's by default). `flagOnly` turns blocks into
   * flags; `verbose: false` lists only the scanners that triggered. The answer is the stored scan,
   * with the text as it may go on (`redactedInput`: what redacting scanners matched masked; under
   * `flagOnly`, what would have blocked left as sent) and, when flagged or blocked, why.
   */
  async scan({ principal, body }: ScanCommand): Promise<ScanView> {
    const exchange = await this.context.open(principal, null, body.project);
    const direction = body.scanDirection ?? 'request';
    const guard = exchange.guard(direction);
    const verdict = await guard.check(body.input);
    const summary: GuardSummary = guard.summary();
    let outcome = summary.outcome;
    // Under flagOnly a block is a flag, and what redacting scanners matched is masked all the same.
    const flagging = body.flagOnly === true && outcome === 'blocked';
    const redactions = flagging ? summary.redactions : verdict.redactions;
    if (flagging) outcome = worstOutcome('flagged', redactions.length ? 'redacted' : 'flagged');
    const redactedInput = redactions.length ? maskSpans(body.input, redactions) : body.input;
    const recording = new Recording(this.recorder, {
      principal,
      projectId: exchange.project.project.id,
      provider: '',
      providerId: null,
      input: '',
      externalMetadata: body.externalMetadata,
      type: 'scan',
      source: 'scans',
    });
    // A text the guardrails would block is kept with what matched masked, whether or not `flagOnly`
    // let it through as a flag (the caller has it already; the store shows it to every viewer);
    // a redacted one is kept as it may go on.
    recording.input = summary.outcome === 'blocked' ? maskSpans(body.input, summary.actedSpans) : redactedInput;
    recording.outcome = outcome;
    recording.results =
      body.verbose === false ? summary.results.filter((r) => r.outcome === 'failed') : summary.results;
    exchange.count(direction, outcome);
    const view = promptView(await recording.close());
    const reason =
      outcome === 'flagged' || outcome === 'blocked'
        ? summary.messages.join('; ') || `the ${direction} was ${outcome} by a guardrail`
        : undefined;
    return {
      ...view,
      redactedInput,
      ...(reason ? { message: reason } : {}),
      result: { ...view.result, ...(reason ? { reason } : {}) },
    };
  }

  /**
   * What a template says, when the caller may send from it: a template the prompt store would not
   * show the caller, or one of another project than the one the prompt goes through, is not found
   * (the same answer as for an id that names no template, so other projects' templates do not show).
   */
  private async templateInput(principal: Principal, templateId: string, projectRef?: string): Promise<TemplateInput> {
    // The project the prompt goes through when the caller holds or names one (resolved once, from
    // the proxy's cache). A token's claim may name its project by name or id: the store compares ids.
    const project = principal.project || projectRef ? await this.context.project(principal, projectRef) : undefined;
    const scope = principal.project ? project?.project.id : undefined;
    let template: TemplateInput;
    try {
      template = await this.rpc.call(
        PromptRpc.templateInput,
        { tenant: principal.tenant, templateId, ...(scope ? { project: scope } : {}) },
        requestContext.getStore()?.requestId ?? 'proxy',
      );
    } catch (err) {
      if (err instanceof DomainError && err.code === ErrorCode.NOT_FOUND) throw templateNotFound(templateId);
      throw err;
    }
    // Without a project named, the prompt goes through the template's own (or the caller's token's,
    // which the prompt store has just matched against the template's).
    if (template.projectId !== null && projectRef && project && !namesProject(project, template.projectId))
      throw templateNotFound(templateId);
    return template;
  }
}

function templateNotFound(templateId: string): DomainError {
  return DomainError.notFound(`prompt template ${templateId} not found`);
}
