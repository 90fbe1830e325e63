import { type Principal, ROLES, type Role } from '@bastion/contracts';

/**
 * Turns verified JWT claims into a principal, or null when a required claim is missing or wrong.
 * An empty `project` is wrong, not "no project": it would otherwise act tenant-wide.
 */
export function principalFromClaims(claims: Record<string, unknown>): Principal | null {
  const { sub, tenant, roles, project } = claims;
  if (typeof sub !== 'string' || sub === '') return null;
  if (typeof tenant !== 'string' || tenant === '') return null;
  if (!Array.isArray(roles) || roles.length === 0 || !roles.every((r) => ROLES.includes(r as Role))) return null;
  if (project !== undefined && (typeof project !== 'string' || project.trim() === '')) return null;
  return { sub, tenant, roles: roles as Role[], ...(project !== undefined ? { project } : {}), credential: 'jwt' };
}

/**
 * Why a JWT's lifetime is refused, or null when it is fine: `exp` is required, and it may lie at most
 * `maxSeconds` after `iat` (or after now, when the token has no `iat`).
 */
export function lifetimeProblem(
  claims: Record<string, unknown>,
  maxSeconds: number,
  nowSeconds = Math.floor(Date.now() / 1000),
): string | null {
  const { exp, iat } = claims;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return 'the token has no exp';
  const from = typeof iat === 'number' && Number.isFinite(iat) ? Math.min(iat, nowSeconds) : nowSeconds;
  if (exp - from > maxSeconds) return `the token lives longer than ${maxSeconds} seconds`;
  return null;
}
