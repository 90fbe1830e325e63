import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { DomainError, ErrorCode, type RpcErrorPayload } from '@bastion/contracts';
import type { Logger } from 'pino';
import { type Observable, throwError } from 'rxjs';

/**
 * Serialises what a message handler throws. Domain errors travel as they are; anything else is a
 * bug, logged here with its stack and answered as INTERNAL without details.
 */
@Catch()
export class RpcDomainExceptionFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown): Observable<RpcErrorPayload> {
    if (exception instanceof DomainError) return throwError(() => exception.toPayload());
    this.logger.error({ err: exception }, 'unhandled error in message handler');
    return throwError(() => ({ code: ErrorCode.INTERNAL, message: 'internal error', details: [] }));
  }
}
