import { DomainError } from '../errors/domain-error';

export type Role = 'admin' | 'member' | 'viewer';
export const ROLES: readonly Role[] = ['admin', 'member', 'viewer'];

/** Who is calling: read from the bearer JWT at the gateway and passed to services with each request. */
export interface Principal {
  sub: string;
  tenant: string;
  roles: Role[];
  /** Set when the token is scoped to one project. */
  project?: string;
}

const RANK: Record<Role, number> = { viewer: 1, member: 2, admin: 3 };

/** True when any of the principal's roles is at least `needed` (admin > member > viewer). */
export function hasRole(principal: Pick<Principal, 'roles'>, needed: Role): boolean {
  return principal.roles.some((r) => RANK[r] >= RANK[needed]);
}

/** Refuses (403) a principal none of whose roles is at least `needed`. */
export function requireRole(principal: Pick<Principal, 'roles'>, needed: Role): void {
  if (!hasRole(principal, needed)) throw DomainError.permissionDenied(`this operation needs the ${needed} role`);
}
