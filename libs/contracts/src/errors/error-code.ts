/**
 * The one error vocabulary of the platform. Services throw these codes; the gateway maps each to an
 * HTTP status and to the error body of the API the route belongs to.
 */
export enum ErrorCode {
  INVALID_ARGUMENT = 'INVALID_ARGUMENT',
  NOT_FOUND = 'NOT_FOUND',
  ALREADY_EXISTS = 'ALREADY_EXISTS',
  FAILED_PRECONDITION = 'FAILED_PRECONDITION',
  PERMISSION_DENIED = 'PERMISSION_DENIED',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  RESOURCE_EXHAUSTED = 'RESOURCE_EXHAUSTED',
  UNAVAILABLE = 'UNAVAILABLE',
  /** An upstream the platform called (a model provider) failed or could not be reached. */
  BAD_GATEWAY = 'BAD_GATEWAY',
  DEADLINE_EXCEEDED = 'DEADLINE_EXCEEDED',
  INTERNAL = 'INTERNAL',
}

/** gRPC status numbers, as the token API writes them in `code`. */
export const GRPC_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.INVALID_ARGUMENT]: 3,
  [ErrorCode.DEADLINE_EXCEEDED]: 4,
  [ErrorCode.NOT_FOUND]: 5,
  [ErrorCode.ALREADY_EXISTS]: 6,
  [ErrorCode.PERMISSION_DENIED]: 7,
  [ErrorCode.RESOURCE_EXHAUSTED]: 8,
  [ErrorCode.FAILED_PRECONDITION]: 9,
  [ErrorCode.INTERNAL]: 13,
  [ErrorCode.UNAVAILABLE]: 14,
  [ErrorCode.BAD_GATEWAY]: 14,
  [ErrorCode.UNAUTHENTICATED]: 16,
};

export const HTTP_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.INVALID_ARGUMENT]: 400,
  [ErrorCode.UNAUTHENTICATED]: 401,
  [ErrorCode.PERMISSION_DENIED]: 403,
  [ErrorCode.NOT_FOUND]: 404,
  [ErrorCode.ALREADY_EXISTS]: 409,
  [ErrorCode.FAILED_PRECONDITION]: 409,
  [ErrorCode.RESOURCE_EXHAUSTED]: 429,
  [ErrorCode.INTERNAL]: 500,
  [ErrorCode.UNAVAILABLE]: 503,
  [ErrorCode.BAD_GATEWAY]: 502,
  [ErrorCode.DEADLINE_EXCEEDED]: 504,
};

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in HTTP_STATUS;
}
