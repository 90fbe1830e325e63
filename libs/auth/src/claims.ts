import { type Principal, ROLES, type Role } from '@bastion/contracts';

/** Turns verified JWT claims into a principal, or null when a required claim is missing or wrong. */
export function principalFromClaims(claims: Record<string, unknown>): Principal | null {
  const { sub, tenant, roles, project } = claims;
  if (typeof sub !== 'string' || sub === '') return null;
  if (typeof tenant !== 'string' || tenant === '') return null;
  if (!Array.isArray(roles) || roles.length === 0 || !roles.every((r) => ROLES.includes(r as Role))) return null;
  if (project !== undefined && typeof project !== 'string') return null;
  return { sub, tenant, roles: roles as Role[], ...(project ? { project } : {}) };
}
