import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { extractToken, JwtVerifier } from '@bastion/auth';
import { DomainError, ErrorCode, looksLikeApiKey, type Principal, refusal } from '@bastion/contracts';
import type { FastifyRequest } from 'fastify';
import { ACCESS_POLICY, ruleKey } from './access-policy.table';
import { ApiKeyCache } from './api-key-cache';

/**
 * The one place a request is authenticated and authorized: the route's rule in ACCESS_POLICY, the
 * caller's credential (a bearer JWT or an API key) turned into a principal, and the rule applied to
 * it. A route with no rule is refused.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly jwt: JwtVerifier,
    private readonly keys: ApiKeyCache,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    const rule = ACCESS_POLICY[ruleKey(req.method, req.routeOptions?.url ?? '')];
    if (!rule) throw DomainError.permissionDenied('this route has no access rule');
    if ('public' in rule) return true;
    const principal = await this.authenticate(req);
    if (!principal) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'missing or invalid bearer token');
    const why = refusal(rule, principal);
    if (why) throw DomainError.permissionDenied(why);
    req.user = principal;
    return true;
  }

  private async authenticate(req: FastifyRequest): Promise<Principal | null> {
    const credential = extractToken(req.headers, req.url);
    if (!credential) return null;
    return looksLikeApiKey(credential) ? this.keys.principal(credential) : this.jwt.verify(credential);
  }
}
