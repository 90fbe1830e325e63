import { DomainError } from '../errors/domain-error';

export type Role = 'admin' | 'member' | 'viewer';
export const ROLES: readonly Role[] = ['admin', 'member', 'viewer'];

/** How the caller proved who it is: a bearer JWT (a person or an identity provider's client) or an API key. */
export type Credential = 'jwt' | 'key';
export const CREDENTIALS: readonly Credential[] = ['jwt', 'key'];

/** Who is calling: read from the bearer JWT or API key at the gateway and passed to services with each request. */
export interface Principal {
  sub: string;
  tenant: string;
  roles: Role[];
  /** Set when the token or key is scoped to one project. */
  project?: string;
  /** `key` for an API key (then `sub` is `key:<id>`); absent or `jwt` for a bearer JWT. */
  credential?: Credential;
}

/** The four kinds of principal the authorization policy tells apart. */
export type PrincipalKind = 'user-jwt' | 'project-jwt' | 'project-key' | 'tenant-key';
export const PRINCIPAL_KINDS: readonly PrincipalKind[] = ['user-jwt', 'project-jwt', 'project-key', 'tenant-key'];

export function principalKind(p: Pick<Principal, 'project' | 'credential'>): PrincipalKind {
  if (p.credential === 'key') return p.project ? 'project-key' : 'tenant-key';
  return p.project ? 'project-jwt' : 'user-jwt';
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

/**
 * Whether a payload's principal has the shape every service relies on (the RPC access guard's
 * check; a project, when given, is not empty).
 */
export function isPrincipal(p: unknown): p is Principal {
  if (typeof p !== 'object' || p === null) return false;
  const v = p as Record<string, unknown>;
  return (
    typeof v.sub === 'string' &&
    typeof v.tenant === 'string' &&
    Array.isArray(v.roles) &&
    v.roles.length > 0 &&
    v.roles.every((r) => ROLES.includes(r as never)) &&
    (v.project === undefined || (typeof v.project === 'string' && v.project !== ''))
  );
}
