import { signDevToken } from '@bastion/auth';
import { bearer, uniqueTenant } from '@bastion/testing';
import type { MockUpstream } from './mock-upstream';
import { http } from './stack';

/** The key the mock upstream takes (see MockUpstream). */
export const MOCK_ANTHROPIC_KEY = 'sk-ant-mock-key-000000';

/**
 * A new tenant with the mock as its Anthropic provider `claude` (with `provider`'s fields added, e.g.
 * limits) and one project (live unless `live: false`; `beforeLive` runs first, e.g. to attach
 * scanners), through the gateway at `base`: its admin's bearer, the project, the provider and a
 * member token scoped to the project.
 */
export async function tenantOnMock(
  base: string,
  upstream: MockUpstream,
  options: {
    project?: string;
    model?: string;
    live?: boolean;
    provider?: Record<string, unknown>;
    beforeLive?: (t: { admin: string; projectId: string }) => Promise<void>;
  } = {},
): Promise<{ tenant: string; admin: string; projectId: string; providerId: string; key: string }> {
  const tenant = uniqueTenant();
  const admin = bearer(tenant, 'admin');
  const provider = await http(base, 'POST', '/backend/v1/providers', {
    auth: admin,
    body: {
      name: 'claude',
      systemProvider: 'anthropic',
      inputs: { baseUrl: upstream.url, ...(options.model ? { model: options.model } : {}) },
      secrets: { apiKey: MOCK_ANTHROPIC_KEY },
      ...options.provider,
    },
  });
  expect(provider.status).toBe(200);
  const project = await http(base, 'POST', '/backend/v1/projects', {
    auth: admin,
    body: { name: options.project ?? 'app' },
  });
  expect(project.status).toBe(200);
  const projectId = (project.body.id ?? project.body.project?.id) as string;
  await options.beforeLive?.({ admin, projectId });
  if (options.live !== false) {
    const live = await http(base, 'PATCH', `/backend/v1/projects/${projectId}`, {
      auth: admin,
      body: { deploymentStatus: 'live' },
    });
    expect(live.status).toBe(200);
  }
  const key = signDevToken({ tenant, roles: ['member'], project: projectId });
  return { tenant, admin, projectId, providerId: provider.body.id as string, key };
}
