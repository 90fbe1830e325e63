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

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: () => {
        const ctx = requestContext.getStore();
        return ctx ? { requestId: ctx.requestId, ...(ctx.tenant ? { tenant: ctx.tenant } : {}) } : {};
      },
    },
    destination,
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
