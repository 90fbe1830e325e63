import { randomUUID } from 'node:crypto';
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { Observable, tap } from 'rxjs';
import { REQUEST_ID_HEADER, requestContext } from '../logging/request-context';

/**
 * Runs each message handler inside the request's context (request id from the NATS header the
 * gateway set, tenant from the payload's principal) and logs one line per handled request.
 */
@Injectable()
export class RequestContextInterceptor implements NestInterceptor {
  constructor(private readonly logger: Logger) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rpc = context.switchToRpc();
    const nats = rpc.getContext<NatsContext>();
    const data = rpc.getData<{ principal?: { tenant?: string } } | undefined>();
    const requestId = nats.getHeaders?.()?.get(REQUEST_ID_HEADER) || randomUUID();
    const tenant = data?.principal?.tenant;
    const subject = nats.getSubject();
    const started = performance.now();
    return new Observable((subscriber) =>
      requestContext.run({ requestId, tenant }, () =>
        next
          .handle()
          .pipe(
            tap({
              complete: () => this.logger.info({ subject, durationMs: round(performance.now() - started) }, 'handled'),
              error: (err: { code?: string }) =>
                this.logger.info({ subject, durationMs: round(performance.now() - started), code: err?.code ?? 'INTERNAL' }, 'failed'),
            }),
          )
          .subscribe(subscriber),
      ),
    );
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
