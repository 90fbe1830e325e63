import { hasRole, type Principal, principalKind, type PrincipalKind, type Role } from './principal';

/**
 * Who may call one route: the least role, and the kinds of principal allowed (a user's JWT, a
 * project-scoped JWT, a project's API key, a tenant-wide API key). `public` routes take no credential.
 */
export type AccessRule = { public: true } | { role: Role; kinds: readonly PrincipalKind[] };

/**
 * Who may send one NATS request: `internal` requests carry no principal (a service or the gateway
 * asks for itself: runtimes, key resolution, health, a site's registration); the others carry the
 * caller's principal, checked against the rule.
 */
export type RpcRule = { internal: true } | { role: Role; kinds: readonly PrincipalKind[] };

/** Every kind of principal. */
export const ANY_KIND: readonly PrincipalKind[] = ['user-jwt', 'project-jwt', 'project-key', 'tenant-key'];
/** Principals not scoped to a project: what may act on the tenant's configuration. */
export const TENANT_KINDS: readonly PrincipalKind[] = ['user-jwt', 'tenant-key'];
/**
 * A person's own tenant-wide JWT, and no key: what may mint or revoke credentials. A key that could
 * make keys would outlive its own revocation and expiry in the keys it made.
 */
export const USER_KINDS: readonly PrincipalKind[] = ['user-jwt'];

/** Why the principal may not call a route under this rule, or null when it may. */
export function refusal(rule: AccessRule | RpcRule, principal: Principal): string | null {
  if ('public' in rule || 'internal' in rule) return null;
  const kind = principalKind(principal);
  if (!rule.kinds.includes(kind)) {
    return principal.project
      ? `this ${kind === 'project-key' ? 'key' : 'token'} is scoped to project ${principal.project}: it cannot call this route`
      : `a ${kind} cannot call this route`;
  }
  if (!hasRole(principal, rule.role)) return `this operation needs the ${rule.role} role`;
  return null;
}
