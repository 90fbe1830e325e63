import { randomUUID } from 'node:crypto';
import { signDevToken } from '@bastion/auth';
import type { Role } from '@bastion/contracts';

/** A tenant name no other test uses, so tests can share one database and one NATS. */
export function uniqueTenant(prefix = 't'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export function bearer(tenant: string, role: Role, extra: { project?: string; sub?: string } = {}): string {
  return `Bearer ${signDevToken({ tenant, roles: [role], ...extra })}`;
}
