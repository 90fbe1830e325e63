import { randomUUID } from 'node:crypto';
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import { context as otelContext, type Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { finalize, Observable, tap } from 'rxjs';
import {
  REQUEST_ID_HEADER,
  requestContext,
  type PlatformMetrics,
  recordFailure,
  startNatsServerSpan,
} from '@bastion/observability';
import { processState } from './connection-state';

/**
 * Runs each message handler inside the request's context (request id from the NATS header the
 * gateway set, tenant from the payload's principal) and its trace span (a child of the caller's,
 * from the message's `traceparent`), and logs one line per request: a failure at info, a success at
 * debug (the `bastion_rpc_*` metrics count those, and the gateway's access line the HTTP requests).
 */
@Injectable()
export class RequestContextInterceptor implements NestInterceptor {
  constructor(
    private readonly logger: Logger,
    private readonly metrics?: PlatformMetrics,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const rpc = context.switchToRpc();
    const nats = rpc.getContext<NatsContext>();
    const data = rpc.getData<{ principal?: { tenant?: string } } | undefined>();
    const requestId = nats.getHeaders?.()?.get(REQUEST_ID_HEADER) || randomUUID();
    const tenant = data?.principal?.tenant;
    const subject = nats.getSubject();
    const started = performance.now();
    const handle = (span: Span) =>
      next.handle().pipe(
        tap({
          complete: () => {
            const ms = performance.now() - started;
            this.metrics?.rpcRequests.inc({ subject, outcome: 'ok' });
            this.metrics?.rpcDuration.observe({ subject }, ms / 1000);
            this.logger.debug({ subject, durationMs: round(ms) }, 'handled');
          },
          error: (err: { code?: string }) => {
            const ms = performance.now() - started;
            const code = err?.code ?? 'INTERNAL';
            this.metrics?.rpcRequests.inc({ subject, outcome: code });
            this.metrics?.rpcDuration.observe({ subject }, ms / 1000);
            this.logger.info({ subject, durationMs: round(ms), code }, 'failed');
            recordFailure(span, err);
          },
        }),
        finalize(() => span.end()),
      );
    return new Observable((subscriber) => {
      // Counted in flight until it completes, fails or is cancelled: a stop waits for it.
      processState.begin();
      const { span, ctx } = startNatsServerSpan(subject, nats.getHeaders?.());
      const inner = requestContext.run({ requestId, tenant, trace: ctx }, () =>
        otelContext.with(ctx, () => handle(span).subscribe(subscriber)),
      );
      return () => {
        inner.unsubscribe();
        processState.end();
      };
    });
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
