import type { Principal, PrincipalKind } from '@bastion/contracts';

/** `GET /backend/v1/users/me`: the caller as the API shows it, whatever kind of principal it is. */
export function whoAmI(p: Principal, kind: PrincipalKind) {
  const email = p.credential !== 'key' && p.sub.includes('@') ? p.sub : null;
  return { user: { id: p.sub, email, tenant: p.tenant, roles: p.roles, projectId: p.project ?? null, kind } };
}
