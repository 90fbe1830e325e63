/**
 * Why an outbound request did not produce a response. The provider tester shows `kind` and
 * `message` to the operator, so messages name the cause and never the full URL: a rendered
 * template URL can carry a secret in its query string.
 */
export type OutboundErrorKind =
  'blocked_address' | 'invalid_url' | 'timeout' | 'unreachable' | 'too_large' | 'tls' | 'other';

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundError';
  }
}
