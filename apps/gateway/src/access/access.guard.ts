import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { extractToken, JwtVerifier } from '@bastion/auth';
import { DomainError, ErrorCode, looksLikeApiKey, type Principal, refusal } from '@bastion/contracts';
import type { FastifyRequest } from 'fastify';
import { ACCESS_POLICY, ruleKey } from './access-policy.table';
import { ApiKeyCache } from './api-key-cache';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { VerifiedTokenCache } from '../http/verified-token-cache';
import { requestTimings } from '../timing/phase-metrics';

/**
 * The one place a request is authenticated and authorized: the route's rule in ACCESS_POLICY, the
 * caller's credential (a bearer JWT or an API key) turned into a principal, and the rule applied to
 * it. A route with no rule is refused. A JWT accepted once is remembered until its `exp` (bounded
 * by AUTH_CACHE_MAX_AGE_MS and AUTH_CACHE_MAX_ENTRIES), so a client sending the same token again
 * costs a map lookup, not a signature check; API keys have their own cache. Records the `auth` phase.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly verified: VerifiedTokenCache<Principal>;
  private readonly checked = new WeakMap<FastifyRequest, Promise<Principal | null>>();

  constructor(
    private readonly jwt: JwtVerifier,
    private readonly keys: ApiKeyCache,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.verified = new VerifiedTokenCache(config.AUTH_CACHE_MAX_ENTRIES, config.AUTH_CACHE_MAX_AGE_MS);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    const rule = ruleOf(req);
    if (!rule) throw DomainError.permissionDenied('this route has no access rule');
    if ('public' in rule) return true;
    const principal = await this.authenticateOnce(req);
    if (!principal) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'missing or invalid bearer token');
    const why = refusal(rule, principal);
    if (why) throw DomainError.permissionDenied(why);
    req.user = principal;
    return true;
  }

  /**
   * The principal of a request that its route's rule lets through, or undefined (no rule, a public
   * route, no valid credential, a refusal, or a credential that cannot be checked now): for checks
   * made before the body is read. canActivate still decides; this never throws.
   */
  async admitted(req: FastifyRequest): Promise<Principal | undefined> {
    const rule = ruleOf(req);
    if (!rule || 'public' in rule) return undefined;
    try {
      const principal = await this.authenticateOnce(req);
      return principal && !refusal(rule, principal) ? principal : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * A request's credential is checked once however often it is asked (before its body is read, then
   * by canActivate): a caller with a bad one costs one signature check or key lookup, not two.
   * Records the `auth` phase.
   */
  private authenticateOnce(req: FastifyRequest): Promise<Principal | null> {
    let pending = this.checked.get(req);
    if (!pending) {
      const started = performance.now();
      pending = this.authenticate(req).finally(() => (requestTimings(req).auth = performance.now() - started));
      this.checked.set(req, pending);
    }
    return pending;
  }

  private async authenticate(req: FastifyRequest): Promise<Principal | null> {
    const credential = extractToken(req.headers, req.url);
    if (!credential) return null;
    if (looksLikeApiKey(credential)) return this.keys.principal(credential);
    const now = Date.now();
    const known = this.verified.get(credential, now);
    if (known) return known;
    const principal = await this.jwt.verify(credential);
    if (principal) this.verified.set(credential, principal, now);
    return principal;
  }
}

/** The access rule of a request's route (undefined: the route has none). */
function ruleOf(req: FastifyRequest): (typeof ACCESS_POLICY)[string] | undefined {
  return ACCESS_POLICY[ruleKey(req.method, req.routeOptions?.url ?? '')];
}
