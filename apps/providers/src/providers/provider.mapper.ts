import type { ProviderRuntime, ProviderTemplateView, ProviderView, SystemProviderView } from '@bastion/contracts';
import type { Provider, SystemProvider } from '../generated/prisma/client';
import { maskSecrets } from './secret-mask';

type Limit = { requests: number; decayPerSecond: number } | null;

export function providerView(p: Provider, secrets: Record<string, string>, revealTail: boolean): ProviderView {
  return {
    id: p.id,
    name: p.name,
    projectId: p.projectId,
    systemProviderId: p.systemProviderId,
    tag: p.tag,
    type: p.type,
    authTemplate: (p.authTemplate as Record<string, unknown> | null) ?? null,
    availability: p.availability as ProviderView['availability'],
    capabilities: p.capabilities,
    hasLogo: p.hasLogo,
    redTeam: p.redTeam,
    siem: p.siem,
    inputs: p.inputs as Record<string, string>,
    secrets: maskSecrets(secrets, revealTail),
    maxRequestsPerSecond: p.maxRequestsPerSecond,
    requestConcurrencyLimit: (p.requestConcurrencyLimit as Limit) ?? null,
    template: p.template as unknown as ProviderTemplateView,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export function systemProviderView(s: SystemProvider): SystemProviderView {
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    projectId: null,
    systemProviderId: null,
    tag: s.tag,
    type: s.type,
    authTemplate: (s.authTemplate as Record<string, unknown> | null) ?? null,
    availability: { global: true, projectIds: [] },
    capabilities: s.capabilities,
    hasLogo: s.hasLogo,
    redTeam: false,
    siem: false,
    inputs: s.inputs as Record<string, string>,
    secrets: Object.fromEntries(s.secretNames.map((n) => [n, ''])),
    secretNames: s.secretNames,
    maxRequestsPerSecond: s.maxRequestsPerSecond,
    requestConcurrencyLimit: (s.requestConcurrencyLimit as Limit) ?? null,
    template: s.template as unknown as ProviderTemplateView,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

export function providerRuntime(p: Provider, secrets: Record<string, string>): ProviderRuntime {
  return {
    id: p.id,
    tenant: p.tenant,
    name: p.name,
    type: p.type,
    projectId: p.projectId,
    availability: p.availability as ProviderRuntime['availability'],
    template: p.template as unknown as ProviderTemplateView,
    inputs: p.inputs as Record<string, string>,
    secrets,
    maxRequestsPerSecond: p.maxRequestsPerSecond,
    requestConcurrencyLimit: (p.requestConcurrencyLimit as Limit) ?? null,
    revision: p.revision,
  };
}
