import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '@bastion/contracts';

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Principal => ctx.switchToHttp().getRequest<{ user: Principal }>().user,
);
