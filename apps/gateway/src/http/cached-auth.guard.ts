import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { extractToken, IS_PUBLIC, JwtAuthGuard } from '@bastion/auth';
import type { Principal } from '@bastion/contracts';
import type { FastifyRequest } from 'fastify';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { requestTimings } from '../timing/phase-metrics';
import { VerifiedTokenCache } from './verified-token-cache';

/**
 * The gateway's authentication: the platform's JWT guard, with the principal of a token it has
 * accepted kept for that token's lifetime (bounded by AUTH_CACHE_MAX_AGE_MS), so a client sending
 * the same token again costs a map lookup instead of a signature check. Records the `auth` phase.
 */
@Injectable()
export class CachedAuthGuard implements CanActivate {
  private readonly cache: VerifiedTokenCache<Principal>;

  constructor(
    private readonly reflector: Reflector,
    private readonly jwt: JwtAuthGuard,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.cache = new VerifiedTokenCache(config.AUTH_CACHE_MAX_ENTRIES, config.AUTH_CACHE_MAX_AGE_MS);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const started = performance.now();
    const req = context.switchToHttp().getRequest<FastifyRequest & { user?: Principal }>();
    try {
      const token = extractToken(req.headers, req.url);
      const now = Date.now();
      const known = token ? this.cache.get(token, now) : undefined;
      if (known) {
        req.user = known;
        return true;
      }
      // Throws UNAUTHENTICATED for a missing or bad token; only accepted tokens are cached.
      const ok = await (this.jwt.canActivate(context) as Promise<boolean>);
      if (ok && token && req.user) this.cache.set(token, req.user, now);
      return ok;
    } finally {
      requestTimings(req).auth = performance.now() - started;
    }
  }

  /** Forgets every cached token (for revocation). */
  forgetAll(): void {
    this.cache.clear();
  }
}
