import {
  type AnthropicApiError,
  type BackendApiError,
  ErrorCode,
  type FieldViolation,
  GRPC_STATUS,
  HTTP_STATUS,
  type TokenApiError,
} from '@bastion/contracts';

/** Each API keeps its own error body; the route's path decides which. */
export type ErrorStyle = 'token' | 'backend' | 'anthropic' | 'openai';

export function errorStyleFor(url: string): ErrorStyle {
  if (url.startsWith('/vendor/')) return 'anthropic';
  if (url.startsWith('/openai/')) return 'openai';
  if (url.startsWith('/backend/')) return 'backend';
  return 'token';
}

export interface RenderedError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface ErrorInput {
  code: ErrorCode;
  message: string;
  details: FieldViolation[];
  requestId: string;
  retryAfter?: number;
  meta?: Record<string, unknown>;
}

const ANTHROPIC_TYPES: Record<ErrorCode, string> = {
  [ErrorCode.INVALID_ARGUMENT]: 'invalid_request_error',
  [ErrorCode.FAILED_PRECONDITION]: 'invalid_request_error',
  [ErrorCode.ALREADY_EXISTS]: 'invalid_request_error',
  [ErrorCode.UNAUTHENTICATED]: 'authentication_error',
  [ErrorCode.PERMISSION_DENIED]: 'permission_error',
  [ErrorCode.NOT_FOUND]: 'not_found_error',
  [ErrorCode.RESOURCE_EXHAUSTED]: 'rate_limit_error',
  [ErrorCode.DEADLINE_EXCEEDED]: 'timeout_error',
  [ErrorCode.UNAVAILABLE]: 'overloaded_error',
  [ErrorCode.BAD_GATEWAY]: 'api_error',
  [ErrorCode.INTERNAL]: 'api_error',
};

const OPENAI_TYPES: Record<ErrorCode, string> = {
  ...ANTHROPIC_TYPES,
  [ErrorCode.RESOURCE_EXHAUSTED]: 'rate_limit_exceeded',
  [ErrorCode.DEADLINE_EXCEEDED]: 'timeout',
  [ErrorCode.UNAVAILABLE]: 'service_unavailable',
  [ErrorCode.BAD_GATEWAY]: 'server_error',
  [ErrorCode.INTERNAL]: 'server_error',
};

/**
 * The one mapping from the platform's error codes to HTTP: status from the code, body in the
 * route's style. A 500 says only that something failed and which request it was.
 */
export function renderError(style: ErrorStyle, e: ErrorInput): RenderedError {
  const status = HTTP_STATUS[e.code];
  const message = e.code === ErrorCode.INTERNAL ? `internal error (request id ${e.requestId})` : e.message;
  const headers: Record<string, string> = {};
  if (e.retryAfter !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(e.retryAfter)));
  switch (style) {
    case 'token':
      return {
        status,
        headers,
        body: {
          code: GRPC_STATUS[e.code],
          details: e.details.length
            ? [
                {
                  '@type': 'type.googleapis.com/google.rpc.BadRequest',
                  field_violations: e.details.map((d) => ({ field: fieldPath(d.loc), description: d.msg })),
                },
              ]
            : [],
          message,
        } satisfies TokenApiError,
      };
    case 'backend':
      return {
        status: e.code === ErrorCode.INVALID_ARGUMENT && e.details.length ? 422 : status,
        headers,
        body: { detail: e.details.length ? e.details : message } satisfies BackendApiError,
      };
    case 'anthropic':
      return {
        status,
        headers,
        body: {
          type: 'error',
          error: {
            type: ANTHROPIC_TYPES[e.code],
            message,
            ...(e.meta?.cai_error ? { cai_error: e.meta.cai_error } : {}),
          },
        } satisfies AnthropicApiError,
      };
    case 'openai':
      return {
        status,
        headers,
        body: {
          error: {
            message,
            type: OPENAI_TYPES[e.code],
            param: e.details.length ? fieldPath(e.details[0].loc) : null,
            code: e.meta?.cai_error ? 'guardrail_blocked' : null,
            ...(e.meta?.cai_error ? { cai_error: e.meta.cai_error } : {}),
          },
        },
      };
  }
}

/** gRPC field paths name the field within its message: drop the body/query/path location. */
function fieldPath(loc: string[]): string {
  return (['body', 'query', 'path'].includes(loc[0]) ? loc.slice(1) : loc).join('.');
}
