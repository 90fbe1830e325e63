import { Inject, Injectable } from '@nestjs/common';
import { DomainError, type ProviderTestResult, type ProviderTemplateView, type TestProviderCommand } from '@bastion/contracts';
import { redactRecord, redactSecrets, runProvider, type Signers, type Transport } from '@bastion/provider-runtime';
import { TemplateError } from '@bastion/templates';
import { PROVIDERS_CONFIG, type ProvidersConfig } from '../config';
import { checkTemplate, plainJson } from '../providers/provider.service';
import { ProviderRepository } from '../providers/provider.repository';

export const OUTBOUND_TRANSPORT = Symbol('OUTBOUND_TRANSPORT');
export const REQUEST_SIGNERS = Symbol('REQUEST_SIGNERS');

/**
 * The connection tester: renders a template, sends it through the guarded client, and shows the
 * exchange with every secret value blanked. An upstream that fails is a result, not an error;
 * a template that does not render is a 422.
 */
@Injectable()
export class ProviderTesterService {
  constructor(
    private readonly providers: ProviderRepository,
    @Inject(OUTBOUND_TRANSPORT) private readonly transport: Transport,
    @Inject(REQUEST_SIGNERS) private readonly signers: Signers,
    @Inject(PROVIDERS_CONFIG) private readonly config: ProvidersConfig,
  ) {}

  async test({ principal, body }: TestProviderCommand): Promise<ProviderTestResult> {
    let template: ProviderTemplateView;
    let inputs = body.inputs ?? {};
    let declaredSecrets: string[] = [];
    if (body.template) {
      template = plainJson(body.template) as ProviderTemplateView;
    } else if (body.systemProvider) {
      const sys = await this.providers.findSystem(body.systemProvider);
      if (!sys) throw DomainError.invalid(`no system provider "${body.systemProvider}"`, [{ loc: ['body', 'systemProvider'], msg: 'not found', type: 'value_error' }]);
      template = sys.template as unknown as ProviderTemplateView;
      inputs = { ...(sys.inputs as Record<string, string>), ...inputs };
      declaredSecrets = sys.secretNames;
    } else {
      throw DomainError.invalid('give either template or systemProvider', [{ loc: ['body'], msg: 'template or systemProvider is required', type: 'value_error' }]);
    }
    const secrets = body.secrets ?? {};
    checkTemplate(template, inputs, secrets, declaredSecrets);
    const secretValues = Object.values(secrets);
    let result;
    try {
      result = await runProvider(
        { template, inputs, secrets, prompt: body.prompt ?? 'Say hello.' },
        { transport: this.transport, signers: this.signers, defaultTimeoutMs: this.config.PROVIDER_TEST_TIMEOUT_MS },
      );
    } catch (err) {
      if (err instanceof TemplateError) {
        throw DomainError.invalid(`invalid template: ${err.message}`, [{ loc: ['body', 'template', ...err.loc.map(String)], msg: err.message, type: `template.${err.code}` }]);
      }
      throw err;
    }
    const url = new URL(result.request.url);
    const queryParams = Object.fromEntries(url.searchParams.entries());
    return {
      content: result.content === null ? null : redactSecrets(result.content, secretValues),
      error: result.error === null ? null : redactSecrets(result.error, secretValues),
      files: [],
      statusCode: result.statusCode,
      requests: {
        [body.capability ?? 'chat']: {
          request: {
            method: result.request.method,
            url: redactSecrets(result.request.url, secretValues),
            headers: redactRecord(result.request.headers, secretValues),
            queryParams: redactRecord(queryParams, secretValues),
            body: result.request.body === undefined ? null : redactSecrets(result.request.body, secretValues),
          },
          response: result.response && {
            statusCode: result.response.statusCode,
            headers: redactRecord(result.response.headers, secretValues),
            body: redactSecrets(result.response.body, secretValues),
          },
        },
      },
    };
  }
}
