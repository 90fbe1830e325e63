import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { DomainError, ErrorCode } from '@bastion/contracts';
import { JWT_STRATEGY } from './jwt.strategy';
import { IS_PUBLIC } from './public.decorator';

/** Applied to every route; only routes marked @Public() go without a valid bearer token. */
@Injectable()
export class JwtAuthGuard extends AuthGuard(JWT_STRATEGY) {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    return isPublic ? true : super.canActivate(context);
  }

  override handleRequest<T>(err: unknown, principal: T | false): T {
    if (err || !principal) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'missing or invalid bearer token');
    return principal;
  }
}
