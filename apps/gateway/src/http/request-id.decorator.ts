import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

export const RequestId = createParamDecorator((_: unknown, ctx: ExecutionContext): string =>
  String(ctx.switchToHttp().getRequest<FastifyRequest>().id),
);
