import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  type CreateProviderCommand,
  DEFAULT_PAGE_SIZE,
  DomainError,
  hasRole,
  type ListProvidersCommand,
  type Page,
  type Principal,
  type ProviderChangedEvent,
  ProviderEventContracts,
  type ProviderRefCommand,
  type ProviderRuntime,
  type ProviderRuntimeQuery,
  type ProviderTemplateView,
  type ProviderView,
  type SystemProviderView,
  type UpdateProviderCommand,
} from '@bastion/contracts';
import { decodeCursor, paginate } from '@bastion/persistence';
import { EventPublisher } from '@bastion/messaging';
import { SecretBox } from '@bastion/platform';
import { PROVIDERS_CONFIG, type ProvidersConfig } from '../config';
import type { Prisma, Provider } from '../generated/prisma/client';
import { SYSTEM_PROVIDERS } from '../system/system-catalog';
import { providerRuntime, providerView, systemProviderView } from './provider.mapper';
import { ProviderRepository } from './provider.repository';
import { checkSecretsRebound } from './secret-binding';
import { mergeSecrets } from './secret-mask';
import { checkTemplate, invalid, plainJson } from './template-check';
import { ProviderTesterService } from './provider-tester.service';
import { splitTestPrompt, testFailure } from './test-prompt';

/**
 * Tenant providers: made from a system provider or a raw template, secrets sealed at rest and
 * masked on the way out, every change published for the message proxy's cache.
 */
@Injectable()
export class ProviderService implements OnModuleInit {
  private readonly box: SecretBox;

  constructor(
    private readonly providers: ProviderRepository,
    private readonly events: EventPublisher,
    private readonly tester: ProviderTesterService,
    @Inject(PROVIDERS_CONFIG) config: ProvidersConfig,
  ) {
    this.box = SecretBox.fromSpec(config.PROVIDERS_ENCRYPTION_KEYS);
  }

  async onModuleInit(): Promise<void> {
    await this.providers.seedSystemProviders(SYSTEM_PROVIDERS);
  }

  async listSystem(_principal: Principal): Promise<{ providers: SystemProviderView[] }> {
    return { providers: (await this.providers.listSystem()).map(systemProviderView) };
  }

  async getSystem(principal: Principal, ref: string): Promise<{ provider: SystemProviderView }> {
    const found = await this.providers.findSystem(ref);
    if (!found) throw DomainError.notFound(`system provider "${ref}" not found`);
    return { provider: systemProviderView(found) };
  }

  async create({ principal, body }: CreateProviderCommand): Promise<{ id: string }> {
    let base: {
      template: unknown;
      authTemplate: unknown;
      inputs: Record<string, string>;
      secretNames: string[];
      capabilities: string[];
      type: string;
      tag: string;
      limits: Pick<Provider, 'maxRequestsPerSecond' | 'requestConcurrencyLimit'>;
      systemProviderId: string | null;
    };
    if (body.systemProvider) {
      const sys = await this.providers.findSystem(body.systemProvider);
      if (!sys) throw invalid(['body', 'systemProvider'], `no system provider "${body.systemProvider}"`);
      base = {
        template: sys.template,
        authTemplate: sys.authTemplate,
        inputs: sys.inputs as Record<string, string>,
        secretNames: sys.secretNames,
        capabilities: sys.capabilities,
        type: sys.type,
        tag: sys.tag,
        limits: {
          maxRequestsPerSecond: sys.maxRequestsPerSecond,
          requestConcurrencyLimit: sys.requestConcurrencyLimit,
        },
        systemProviderId: sys.id,
      };
    } else if (body.template) {
      base = {
        template: plainJson(body.template),
        authTemplate: body.authTemplate ?? null,
        inputs: {},
        secretNames: [],
        capabilities: ['chat'],
        type: 'custom',
        tag: '',
        limits: { maxRequestsPerSecond: null, requestConcurrencyLimit: null },
        systemProviderId: null,
      };
    } else {
      throw invalid(['body'], 'give either systemProvider or template');
    }
    const given = splitTestPrompt(body.inputs);
    const inputs = { ...base.inputs, ...given.inputs };
    const secrets = body.secrets ?? {};
    const template = body.template ? plainJson(body.template) : base.template;
    checkTemplate(template, inputs, secrets, base.secretNames);
    if (body.test)
      await this.mustPassTest(template, inputs, secrets, given.prompt, body.capabilities?.[0] ?? base.capabilities[0]);
    const id = randomUUID();
    const created = await this.providers.create({
      id,
      tenant: principal.tenant,
      name: body.name,
      projectId: body.projectId ?? null,
      systemProviderId: base.systemProviderId,
      type: body.type ?? base.type,
      tag: body.tag ?? base.tag,
      capabilities: body.capabilities ?? base.capabilities,
      template: template as Prisma.InputJsonValue,
      authTemplate: (body.authTemplate ?? base.authTemplate ?? undefined) as Prisma.InputJsonValue | undefined,
      inputs,
      secrets: this.seal(id, secrets),
      availability: (body.availability ?? { global: true, projectIds: [] }) as unknown as Prisma.InputJsonValue,
      redTeam: body.redTeam ?? false,
      siem: body.siem ?? false,
      maxRequestsPerSecond: body.maxRequestsPerSecond ?? base.limits.maxRequestsPerSecond,
      requestConcurrencyLimit: (body.requestConcurrencyLimit ?? base.limits.requestConcurrencyLimit ?? undefined) as
        Prisma.InputJsonValue | undefined,
    });
    await this.changed(created, 'created');
    return { id };
  }

  async list({ principal, limit, cursor }: ListProvidersCommand): Promise<Page<'providers', ProviderView>> {
    const size = limit ?? DEFAULT_PAGE_SIZE;
    const c = cursor ? decodeCursor(cursor) : undefined;
    const page = paginate(await this.providers.page(principal.tenant, size, c), size, c);
    return { providers: page.items.map((p) => this.view(p, principal)), next: page.next, prev: page.prev };
  }

  async get({ principal, ref }: ProviderRefCommand): Promise<{ provider: ProviderView }> {
    return { provider: this.view(await this.mustFind(principal.tenant, ref), principal) };
  }

  async update({ principal, ref, body }: UpdateProviderCommand): Promise<{ provider: ProviderView }> {
    const current = await this.mustFind(principal.tenant, ref);
    const stored = this.open(current);
    checkSecretsRebound(
      {
        template: current.template,
        authTemplate: current.authTemplate,
        inputs: current.inputs as Record<string, string>,
        secrets: stored,
      },
      {
        template: body.template === undefined ? undefined : plainJson(body.template),
        authTemplate: body.authTemplate === undefined ? undefined : plainJson(body.authTemplate),
        inputs: body.inputs,
        secrets: body.secrets,
      },
    );
    const given = splitTestPrompt(body.inputs);
    const inputs = body.inputs
      ? { ...(current.inputs as Record<string, string>), ...given.inputs }
      : (current.inputs as Record<string, string>);
    const secrets = body.secrets ? mergeSecrets(stored, body.secrets) : stored;
    const template = body.template ? plainJson(body.template) : current.template;
    checkTemplate(template, inputs, secrets);
    if (body.test)
      await this.mustPassTest(
        template,
        inputs,
        secrets,
        given.prompt,
        body.capabilities?.[0] ?? current.capabilities[0],
      );
    const updated = await this.providers.update(current.id, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.template !== undefined ? { template: template as Prisma.InputJsonValue } : {}),
      ...(body.authTemplate !== undefined
        ? { authTemplate: (body.authTemplate ?? undefined) as Prisma.InputJsonValue | undefined }
        : {}),
      ...(body.capabilities !== undefined ? { capabilities: body.capabilities } : {}),
      ...(body.projectId !== undefined ? { projectId: body.projectId } : {}),
      ...(body.tag !== undefined ? { tag: body.tag } : {}),
      ...(body.availability !== undefined
        ? { availability: body.availability as unknown as Prisma.InputJsonValue }
        : {}),
      ...(body.redTeam !== undefined ? { redTeam: body.redTeam } : {}),
      ...(body.siem !== undefined ? { siem: body.siem } : {}),
      ...(body.maxRequestsPerSecond !== undefined ? { maxRequestsPerSecond: body.maxRequestsPerSecond } : {}),
      ...(body.requestConcurrencyLimit !== undefined
        ? { requestConcurrencyLimit: body.requestConcurrencyLimit as unknown as Prisma.InputJsonValue }
        : {}),
      inputs,
      secrets: this.seal(current.id, secrets),
    });
    await this.changed(updated, 'updated');
    return { provider: this.view(updated, principal) };
  }

  async delete({ principal, ref }: ProviderRefCommand): Promise<Record<string, never>> {
    const current = await this.mustFind(principal.tenant, ref);
    await this.providers.delete(current.id);
    await this.changed(current, 'deleted');
    return {};
  }

  /** For the message proxy only (over NATS): the provider with its secrets in clear. */
  async runtime({ tenant, ref }: ProviderRuntimeQuery): Promise<ProviderRuntime> {
    const p = await this.mustFind(tenant, ref);
    return providerRuntime(p, this.open(p));
  }

  /** `test: true`: the connection test must pass before anything is saved; a failure is a 422 saying why. */
  private async mustPassTest(
    template: unknown,
    inputs: Record<string, string>,
    secrets: Record<string, string>,
    prompt: string,
    capability?: string,
  ): Promise<void> {
    const result = await this.tester.run({
      template: template as ProviderTemplateView,
      inputs,
      secrets,
      prompt,
      capability,
    });
    const failure = testFailure(result);
    if (failure !== null) {
      const msg = `the connection test failed: ${failure}`;
      throw DomainError.invalid(`${msg}; nothing was saved`, [
        { loc: ['body', 'test'], msg, type: 'value_error.provider_test' },
      ]);
    }
  }

  private view(p: Provider, principal: Principal): ProviderView {
    return providerView(p, this.open(p), hasRole(principal, 'admin'));
  }

  private async mustFind(tenant: string, ref: string): Promise<Provider> {
    const p = await this.providers.find(tenant, ref);
    if (!p) throw DomainError.notFound(`provider "${ref}" not found`);
    return p;
  }

  /** The provider id is the ciphertext's associated data: a sealed map cannot be moved to another row. */
  private seal(id: string, secrets: Record<string, string>): string {
    return this.box.seal(JSON.stringify(secrets), id);
  }

  private open(p: Provider): Record<string, string> {
    return JSON.parse(this.box.open(p.secrets, p.id)) as Record<string, string>;
  }

  private async changed(p: Provider, change: ProviderChangedEvent['change']): Promise<void> {
    const event: ProviderChangedEvent = {
      id: p.id,
      tenant: p.tenant,
      name: p.name,
      change,
      occurredAt: new Date().toISOString(),
    };
    await this.events.publish(ProviderEventContracts.changed, event);
  }
}
