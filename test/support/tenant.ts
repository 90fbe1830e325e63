import { signDevToken } from '@bastion/auth';
import { bearer, uniqueTenant } from '@bastion/testing';
import type { MockUpstream } from './mock-upstream';
import { http } from './stack';

/** The key the mock upstream takes (see MockUpstream). */
export const MOCK_ANTHROPIC_KEY = 'sk-ant-mock-key-000000';

/**
 * A new tenant with the mock as its Anthropic provider `claude` and one project (live unless
 * `live: false`), through the gateway at `base`: its admin's bearer, the project and a member token
 * scoped to it.
 */
export async function tenantOnMock(
  base: string,
  upstream: MockUpstream,
  options: { project?: string; model?: string; live?: boolean } = {},
): Promise<{ tenant: string; admin: string; projectId: string; key: string }> {
  const tenant = uniqueTenant();
  const admin = bearer(tenant, 'admin');
  const provider = await http(base, 'POST', '/backend/v1/providers', {
    auth: admin,
    body: {
      name: 'claude',
      systemProvider: 'anthropic',
      inputs: { baseUrl: upstream.url, ...(options.model ? { model: options.model } : {}) },
      secrets: { apiKey: MOCK_ANTHROPIC_KEY },
    },
  });
  expect(provider.status).toBe(200);
  const project = await http(base, 'POST', '/backend/v1/projects', {
    auth: admin,
    body: { name: options.project ?? 'app' },
  });
  expect(project.status).toBe(200);
  const projectId = (project.body.id ?? project.body.project?.id) as string;
  if (options.live !== false) {
    const live = await http(base, 'PATCH', `/backend/v1/projects/${projectId}`, {
      auth: admin,
      body: { deploymentStatus: 'live' },
    });
    expect(live.status).toBe(200);
  }
  return { tenant, admin, projectId, key: signDevToken({ tenant, roles: ['member'], project: projectId }) };
}
