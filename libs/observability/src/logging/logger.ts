import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';
import { requestContext } from './request-context';

/** Paths pino blanks out wherever they appear in a log object. */
export const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.headers.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'secrets',
  '*.secrets',
  'password',
  '*.password',
  'token',
  '*.token',
  'privateKey',
  '*.privateKey',
];

/**
 * Stdout, written in batches: a line waits until 4 KB are buffered or 500 ms have passed, and an
 * error flushes at once. One write per request line cost the gateway and each service as much CPU
 * as answering the request's socket. `flushLogsSync` writes what is buffered before a graceful stop
 * raises its signal again, and pino does it on `process.exit`; a SIGKILL loses at most the last
 * 500 ms of lines.
 */
function bufferedStdout(): pino.DestinationStream & { flush(): void } {
  const out = pino.destination({ dest: 1, minLength: 4096, sync: false });
  setInterval(() => out.flush(), 500).unref();
  buffered.add(out);
  return out;
}

const buffered = new Set<{ flushSync(): void }>();

/** Writes every buffered log line now, synchronously: the last thing before a process ends itself. */
export function flushLogsSync(): void {
  for (const out of buffered) {
    try {
      out.flushSync();
    } catch {
      // A write still in flight finishes on its own; nothing more can be done synchronously.
    }
  }
}

export function createLogger(
  service: string,
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: pino.DestinationStream,
): Logger {
  const out = destination ?? bufferedStdout();
  const flush = 'flush' in out && typeof out.flush === 'function' ? () => (out.flush as () => void)() : undefined;
  return pino(
    {
      level,
      hooks: {
        logMethod(args, method, lvl) {
          method.apply(this, args);
          if (lvl >= 50) flush?.();
        },
      },
      base: { service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => {
        const ctx = requestContext.getStore();
        return ctx ? { requestId: ctx.requestId, ...(ctx.tenant ? { tenant: ctx.tenant } : {}) } : {};
      },
    },
    out,
  );
}

/** Lets Nest's own messages go through the same pino logger. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
