import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import { DomainError, ErrorCode } from '@bastion/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { errorStyleFor, renderError } from './error-renderer';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: ErrorCode.INVALID_ARGUMENT,
  401: ErrorCode.UNAUTHENTICATED,
  403: ErrorCode.PERMISSION_DENIED,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.NOT_FOUND,
  409: ErrorCode.ALREADY_EXISTS,
  413: ErrorCode.INVALID_ARGUMENT,
  415: ErrorCode.INVALID_ARGUMENT,
  429: ErrorCode.RESOURCE_EXHAUSTED,
  502: ErrorCode.BAD_GATEWAY,
  503: ErrorCode.UNAVAILABLE,
  504: ErrorCode.DEADLINE_EXCEEDED,
};

/**
 * The gateway's only exception filter. Domain errors (from services or the gateway itself) and
 * framework errors (unknown route, body too large) all leave in the route's error format.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { error, status } = this.classify(exception);
    if (error.code === ErrorCode.INTERNAL) {
      this.logger.error({ err: exception, requestId: req.id, route: req.routeOptions?.url }, 'unhandled error');
    }
    const rendered = renderError(errorStyleFor(req.url), {
      code: error.code,
      message: error.message,
      details: error.details,
      requestId: String(req.id),
      retryAfter: error.retryAfter,
      meta: error.meta,
    });
    void reply
      .status(status ?? rendered.status)
      .headers(rendered.headers)
      .send(rendered.body);
  }

  private classify(exception: unknown): { error: DomainError; status?: number } {
    if (exception instanceof DomainError) return { error: exception };
    const status =
      exception instanceof HttpException
        ? exception.getStatus()
        : typeof (exception as { statusCode?: unknown })?.statusCode === 'number'
          ? (exception as { statusCode: number }).statusCode
          : 500;
    const code = CODE_BY_STATUS[status];
    if (!code) return { error: new DomainError(ErrorCode.INTERNAL, 'internal error') };
    const message = exception instanceof Error ? exception.message : 'request failed';
    return { error: new DomainError(code, message), status };
  }
}
