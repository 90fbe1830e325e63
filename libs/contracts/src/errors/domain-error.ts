import { ErrorCode, isErrorCode } from './error-code';

/** A field-level problem, carried in `details` so each API style can render it its own way. */
export interface FieldViolation {
  /** Path of the offending field, e.g. `["body", "metadata", "name"]`. */
  loc: string[];
  msg: string;
  type: string;
}

/** What travels over NATS when a request fails. */
export interface RpcErrorPayload {
  code: ErrorCode;
  message: string;
  details: FieldViolation[];
  /** Seconds to wait before retrying (RESOURCE_EXHAUSTED, UNAVAILABLE); the gateway sends it as `Retry-After`. */
  retryAfter?: number;
  /** API-specific extras a renderer may show (e.g. `cai_error` of a guardrail block). */
  meta?: Record<string, unknown>;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: FieldViolation[] = [],
    readonly retryAfter?: number,
    readonly meta?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toPayload(): RpcErrorPayload {
    const payload: RpcErrorPayload = { code: this.code, message: this.message, details: this.details };
    if (this.retryAfter !== undefined) payload.retryAfter = this.retryAfter;
    if (this.meta !== undefined) payload.meta = this.meta;
    return payload;
  }

  static fromPayload(value: unknown): DomainError | undefined {
    if (typeof value !== 'object' || value === null) return undefined;
    const v = value as Partial<RpcErrorPayload>;
    if (!isErrorCode(v.code) || typeof v.message !== 'string') return undefined;
    return new DomainError(v.code, v.message, Array.isArray(v.details) ? v.details : [], v.retryAfter, v.meta);
  }

  static invalid(message: string, details: FieldViolation[] = []): DomainError {
    return new DomainError(ErrorCode.INVALID_ARGUMENT, message, details);
  }
  static notFound(message: string): DomainError {
    return new DomainError(ErrorCode.NOT_FOUND, message);
  }
  static alreadyExists(message: string): DomainError {
    return new DomainError(ErrorCode.ALREADY_EXISTS, message);
  }
  static permissionDenied(message: string): DomainError {
    return new DomainError(ErrorCode.PERMISSION_DENIED, message);
  }
  static failedPrecondition(message: string): DomainError {
    return new DomainError(ErrorCode.FAILED_PRECONDITION, message);
  }
}
