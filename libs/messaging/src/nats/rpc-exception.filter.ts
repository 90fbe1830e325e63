import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { DomainError, ErrorCode, type RpcErrorPayload } from '@bastion/contracts';
import type { Logger } from 'pino';
import { type Observable, throwError } from 'rxjs';
import { OutageLog } from '@bastion/observability';
import { isDatabaseUnavailable } from '@bastion/persistence';
import { OUTAGE_RETRY_AFTER_S } from './rpc-client';

/**
 * Serialises what a message handler throws. Domain errors travel as they are; anything else is a
 * bug, logged here with its stack and answered as INTERNAL without details.
 */
@Catch()
export class RpcDomainExceptionFilter implements RpcExceptionFilter<unknown> {
  private readonly outages: OutageLog;

  constructor(private readonly logger: Logger) {
    this.outages = new OutageLog(logger);
  }

  catch(exception: unknown): Observable<RpcErrorPayload> {
    if (exception instanceof DomainError) return throwError(() => exception.toPayload());
    // An unreachable database is an outage, not a bug: 503 with Retry-After, logged once per outage.
    if (isDatabaseUnavailable(exception)) {
      this.outages.report('database', exception);
      return throwError(() =>
        new DomainError(
          ErrorCode.UNAVAILABLE,
          'the database is not reachable; retry shortly',
          [],
          OUTAGE_RETRY_AFTER_S,
        ).toPayload(),
      );
    }
    this.logger.error({ err: exception }, 'unhandled error in message handler');
    return throwError(() => ({ code: ErrorCode.INTERNAL, message: 'internal error', details: [] }));
  }
}
