import { ErrorCode } from '@bastion/contracts';
import { errorStyleFor, renderError } from './error-renderer';

const base = { details: [], requestId: 'r-1' };

describe('renderError', () => {
  it('chooses the style from the path', () => {
    expect(errorStyleFor('/api/register/namespaces/system/tokens')).toBe('token');
    expect(errorStyleFor('/backend/v1/providers')).toBe('backend');
    expect(errorStyleFor('/vendor/anthropic/v1/messages')).toBe('anthropic');
  });

  it.each([
    [ErrorCode.INVALID_ARGUMENT, 400, 3],
    [ErrorCode.UNAUTHENTICATED, 401, 16],
    [ErrorCode.PERMISSION_DENIED, 403, 7],
    [ErrorCode.NOT_FOUND, 404, 5],
    [ErrorCode.ALREADY_EXISTS, 409, 6],
    [ErrorCode.RESOURCE_EXHAUSTED, 429, 8],
    [ErrorCode.INTERNAL, 500, 13],
    [ErrorCode.UNAVAILABLE, 503, 14],
    [ErrorCode.BAD_GATEWAY, 502, 14],
    [ErrorCode.DEADLINE_EXCEEDED, 504, 4],
  ])('token style maps %s to HTTP %d and gRPC %d', (code, status, grpc) => {
    const r = renderError('token', { ...base, code, message: 'm' });
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ code: grpc, details: [] });
  });

  it('never leaks an internal message, only the request id', () => {
    const r = renderError('token', { ...base, code: ErrorCode.INTERNAL, message: 'db password wrong at 10.0.0.1' });
    expect(JSON.stringify(r.body)).not.toContain('password');
    expect(JSON.stringify(r.body)).toContain('r-1');
  });

  it('lists field violations in the token and backend styles', () => {
    const details = [{ loc: ['body', 'metadata', 'name'], msg: 'must be a DNS label', type: 'matches' }];
    const token = renderError('token', { ...base, code: ErrorCode.INVALID_ARGUMENT, message: 'bad', details });
    expect(token.body).toEqual({
      code: 3,
      message: 'bad',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          field_violations: [{ field: 'metadata.name', description: 'must be a DNS label' }],
        },
      ],
    });
    const backend = renderError('backend', { ...base, code: ErrorCode.INVALID_ARGUMENT, message: 'bad', details });
    expect(backend.status).toBe(422);
    expect(backend.body).toEqual({ detail: details });
  });

  it("carries a guardrail block's cai_error in the Anthropic error", () => {
    const cai = { outcome: 'blocked', scanner_results: [{ scannerId: 's', outcome: 'failed' }] };
    const r = renderError('anthropic', {
      ...base,
      code: ErrorCode.INVALID_ARGUMENT,
      message: 'blocked',
      meta: { cai_error: cai },
    });
    expect(r).toEqual({
      status: 400,
      headers: {},
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'blocked', cai_error: cai } },
    });
  });

  it('writes Anthropic errors and Retry-After', () => {
    const r = renderError('anthropic', {
      ...base,
      code: ErrorCode.RESOURCE_EXHAUSTED,
      message: 'slow down',
      retryAfter: 1.2,
    });
    expect(r).toEqual({
      status: 429,
      headers: { 'retry-after': '2' },
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
    });
  });
});
