import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  type ProviderTestExchange,
  type ProviderTestResult,
  type ProviderTemplateView,
  type TestProviderCommand,
} from '@bastion/contracts';
import {
  type IncomingResponse,
  type OutgoingRequest,
  redactRecord,
  redactSecrets,
  runProvider,
  type Signers,
  type Transport,
} from '@bastion/provider-runtime';
import { TemplateError } from '@bastion/templates';
import { PROVIDERS_CONFIG, type ProvidersConfig } from '../config';
import { checkTemplate, plainJson } from './template-check';
import { ProviderRepository } from './provider.repository';
import { splitTestPrompt } from './test-prompt';

export const OUTBOUND_TRANSPORT = Symbol('OUTBOUND_TRANSPORT');
export const REQUEST_SIGNERS = Symbol('REQUEST_SIGNERS');

/** What one connection test runs: a template (request or workflow) with its inputs and secrets. */
export interface ConnectionTest {
  template: ProviderTemplateView;
  inputs: Record<string, string>;
  secrets: Record<string, string>;
  prompt: string;
  capability?: string;
}

/**
 * The connection tester: renders a template, sends it through the guarded client, and shows the
 * exchange with every secret value blanked. An upstream that fails is a result, not an error;
 * a template that does not render is a 422. Provider create and update (`test: true`) run the
 * same test before saving.
 */
@Injectable()
export class ProviderTesterService {
  constructor(
    private readonly providers: ProviderRepository,
    @Inject(OUTBOUND_TRANSPORT) private readonly transport: Transport,
    @Inject(REQUEST_SIGNERS) private readonly signers: Signers,
    @Inject(PROVIDERS_CONFIG) private readonly config: ProvidersConfig,
  ) {}

  async test({ body }: TestProviderCommand): Promise<ProviderTestResult> {
    const given = splitTestPrompt(body.inputs, body.prompt);
    let template: ProviderTemplateView;
    let inputs = given.inputs;
    let declaredSecrets: string[] = [];
    if (body.template) {
      template = plainJson(body.template) as ProviderTemplateView;
    } else if (body.systemProvider) {
      const sys = await this.providers.findSystem(body.systemProvider);
      if (!sys)
        throw DomainError.invalid(`no system provider "${body.systemProvider}"`, [
          { loc: ['body', 'systemProvider'], msg: 'not found', type: 'value_error' },
        ]);
      template = sys.template as unknown as ProviderTemplateView;
      inputs = { ...(sys.inputs as Record<string, string>), ...inputs };
      declaredSecrets = sys.secretNames;
    } else {
      throw DomainError.invalid('give either template or systemProvider', [
        { loc: ['body'], msg: 'template or systemProvider is required', type: 'value_error' },
      ]);
    }
    const secrets = body.secrets ?? {};
    checkTemplate(template, inputs, secrets, declaredSecrets);
    return this.run({ template, inputs, secrets, prompt: given.prompt, capability: body.capability });
  }

  /** Runs one test of an already checked template; the exchanges are shown with secrets blanked. */
  async run(test: ConnectionTest): Promise<ProviderTestResult> {
    const secretValues = Object.values(test.secrets);
    let result;
    try {
      result = await runProvider(
        { template: test.template, inputs: test.inputs, secrets: test.secrets, prompt: test.prompt },
        {
          transport: this.transport,
          signers: this.signers,
          defaultTimeoutMs: this.config.PROVIDER_TEST_TIMEOUT_MS,
          maxTimeoutMs: this.config.PROVIDER_TEST_TIMEOUT_MS,
        },
      );
    } catch (err) {
      if (err instanceof TemplateError) {
        throw DomainError.invalid(`invalid template: ${err.message}`, [
          { loc: ['body', 'template', ...err.loc.map(String)], msg: err.message, type: `template.${err.code}` },
        ]);
      }
      throw err;
    }
    const show = (request: OutgoingRequest, response: IncomingResponse | null): ProviderTestExchange => {
      const url = request.url ? new URL(request.url) : undefined;
      return {
        request: {
          method: request.method,
          url: redactSecrets(request.url, secretValues),
          headers: redactRecord(request.headers, secretValues),
          queryParams: redactRecord(url ? Object.fromEntries(url.searchParams.entries()) : {}, secretValues),
          body: request.body === undefined ? null : redactSecrets(request.body, secretValues),
        },
        response: response && {
          statusCode: response.statusCode,
          headers: redactRecord(response.headers, secretValues),
          body: redactSecrets(response.body, secretValues),
        },
      };
    };
    // A workflow shows each stage's requests too: `stage 1`, `stage 2 attempt 1`, ...
    const stages = Object.fromEntries(
      (result.exchanges ?? []).map((e) => [
        `stage ${e.stage}${e.attempt === undefined ? '' : ` attempt ${e.attempt}`}`,
        show(e.request, e.response),
      ]),
    );
    return {
      content: result.content === null ? null : redactSecrets(result.content, secretValues),
      error: result.error === null ? null : redactSecrets(result.error, secretValues),
      files: [],
      statusCode: result.statusCode,
      requests: { [test.capability ?? 'chat']: show(result.request, result.response), ...stages },
    };
  }
}
