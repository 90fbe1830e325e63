import type { ApiKeyView, ResolvedApiKey, Role } from '@bastion/contracts';
import type { ApiKey } from '../generated/prisma/client';

export function apiKeyView(k: ApiKey): ApiKeyView {
  return {
    id: k.id,
    name: k.name,
    prefix: `bsk_${k.id.replace(/-/g, '').slice(0, 8)}`,
    projectId: k.projectId,
    role: k.role as Role,
    machine: k.machine,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    createdAt: k.createdAt.toISOString(),
    createdBy: k.createdBy,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
  };
}

export function resolvedApiKey(k: ApiKey): ResolvedApiKey {
  return {
    id: k.id,
    tenant: k.tenant,
    projectId: k.projectId,
    role: k.role as Role,
    hash: k.secretHash,
    expiresAt: k.expiresAt?.toISOString() ?? null,
  };
}
