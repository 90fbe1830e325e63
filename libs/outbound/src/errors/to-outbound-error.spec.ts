import { OutboundError } from './outbound-error';
import { toOutboundError, type FailureContext } from './to-outbound-error';

const ctx: FailureContext = {
  origin: 'https://api.example.com',
  timeoutMs: 30_000,
  maxResponseBytes: 1000,
  maxRequestBytes: 500,
  timedOut: false,
};

const nodeError = (code: string, message = code) => Object.assign(new Error(message), { code });
/** As a request error that keeps the socket's error as its cause. */
const wrapped = (cause: Error) => new Error(cause.message, { cause });

describe('toOutboundError', () => {
  it.each([
    ['ECONNREFUSED', 'unreachable'],
    ['ENOTFOUND', 'unreachable'],
    ['EAI_AGAIN', 'unreachable'],
    ['ECONNRESET', 'unreachable'],
    ['EHOSTUNREACH', 'unreachable'],
    ['ETIMEDOUT', 'timeout'],
    ['ECONNABORTED', 'timeout'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['EPROTO', 'tls'],
    ['ERR_INVALID_URL', 'invalid_url'],
    ['ERR_INVALID_CHAR', 'other'],
  ])('maps %s (wrapped, as the cause) to %s', (code, kind) => {
    expect(toOutboundError(wrapped(nodeError(code)), ctx).kind).toBe(kind);
  });

  it('calls a cancellation a timeout when the client deadline fired, and other otherwise', () => {
    const canceled = nodeError('ABORT_ERR', 'The operation was aborted');
    expect(toOutboundError(canceled, { ...ctx, timedOut: true })).toMatchObject({
      kind: 'timeout',
      message: 'https://api.example.com did not answer within 30000 ms',
    });
    expect(toOutboundError(canceled, ctx).kind).toBe('other');
  });

  it('finds codes inside the AggregateError of a dual-stack connection attempt', () => {
    const both = new AggregateError([nodeError('ECONNREFUSED'), nodeError('ECONNREFUSED')], '');
    expect(toOutboundError(wrapped(both), ctx)).toMatchObject({
      kind: 'unreachable',
      message: 'cannot reach https://api.example.com: connection refused (ECONNREFUSED)',
    });
  });

  it('keeps a refusal raised by the guard as it is', () => {
    const refusal = new OutboundError('blocked_address', 'refused: 10.0.0.1 is a private address');
    expect(toOutboundError(wrapped(refusal), ctx)).toBe(refusal);
  });

  it('keeps the original error as the cause and an unknown failure as other', () => {
    const original = wrapped(nodeError('ESOMETHING', 'strange failure'));
    const mapped = toOutboundError(original, ctx);
    expect(mapped).toMatchObject({
      kind: 'other',
      message: 'the request to https://api.example.com failed: strange failure',
    });
    expect(mapped.cause).toBe(original);
  });
});
