import type { ExecutionContext } from '@nestjs/common';
import type { JwtVerifier } from '@bastion/auth';
import { ErrorCode, type Principal } from '@bastion/contracts';
import type { FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../config';
import { AccessGuard } from './access.guard';
import type { ApiKeyCache } from './api-key-cache';

describe('AccessGuard', () => {
  const member: Principal = { sub: 'u1', tenant: 't1', roles: ['member'], project: 'p1' };
  const config = { AUTH_CACHE_MAX_ENTRIES: 100, AUTH_CACHE_MAX_AGE_MS: 60_000 } as GatewayConfig;

  function setup(verified: Principal | null) {
    const verify = jest.fn(async () => verified);
    const guard = new AccessGuard({ verify } as unknown as JwtVerifier, {} as ApiKeyCache, config);
    // Each call a new request, as each HTTP request is: the same token, not the same request.
    const request = () =>
      ({
        method: 'POST',
        url: '/vendor/claude/v1/messages',
        routeOptions: { url: '/vendor/:provider/v1/messages' },
        headers: { authorization: `Bearer token-${verified ? 'good' : 'bad'}` },
      }) as unknown as FastifyRequest & { user?: Principal };
    const context = (req: FastifyRequest) =>
      ({ switchToHttp: () => ({ getRequest: () => req }) }) as unknown as ExecutionContext;
    return { guard, verify, request, context };
  }

  it('checks a bad credential once per request, before the body and again in canActivate', async () => {
    const { guard, verify, request, context } = setup(null);
    const req = request();
    await expect(guard.admitted(req)).resolves.toBeUndefined();
    await expect(guard.canActivate(context(req))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    expect(verify).toHaveBeenCalledTimes(1);
    // Another request with it is checked again: nothing remembers a refusal.
    await expect(guard.canActivate(context(request()))).rejects.toMatchObject({ code: ErrorCode.UNAUTHENTICATED });
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it('admits a good one before the body as canActivate does, and records the auth phase', async () => {
    const { guard, verify, request, context } = setup(member);
    const req = request();
    await expect(guard.admitted(req)).resolves.toEqual(member);
    await expect(guard.canActivate(context(req))).resolves.toBe(true);
    expect(req.user).toEqual(member);
    expect(verify).toHaveBeenCalledTimes(1);
    expect((req as { timings?: { auth?: number } }).timings?.auth).toEqual(expect.any(Number));
  });

  it('admits before the body no one its route would refuse', async () => {
    const { guard, request } = setup({ ...member, roles: [] });
    await expect(guard.admitted(request())).resolves.toBeUndefined();
  });
});
