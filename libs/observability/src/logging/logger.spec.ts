import { Writable } from 'node:stream';
import { createLogger, redactLogObject } from './logger';
import { requestContext } from './request-context';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _e, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { lines, logger: createLogger('svc', 'info', sink) };
}

describe('createLogger', () => {
  it('redacts authorization headers, API keys, tokens and secrets wherever they sit', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        headers: { authorization: 'Bearer eyJ.secret.jwt', 'x-api-key': 'sk-ant-123', accept: 'json' },
        req: { headers: { authorization: 'APIToken abc' } },
        provider: { secrets: { apiKey: 'sk-live-999' }, name: 'p' },
        token: 'c05edd2d-f6b2-4863-aa6e-5fa177e063e1',
        password: 'hunter2',
      },
      'request',
    );
    const text = JSON.stringify(lines[0]);
    for (const secret of ['eyJ.secret.jwt', 'sk-ant-123', 'APIToken abc', 'sk-live-999', 'c05edd2d', 'hunter2'])
      expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', accept: 'json' },
      provider: { secrets: '[redacted]', name: 'p' },
    });
  });

  it("blanks them in a child logger's bindings too, and in a child's child's", () => {
    const { lines, logger } = capture();
    const child = logger.child({ token: 'tok-bound-1', provider: 'p' });
    child.info('bound');
    child.child({ headers: { authorization: 'Bearer eyJ.bound.jwt' } }).info('bound twice');
    const text = JSON.stringify(lines);
    for (const secret of ['tok-bound-1', 'eyJ.bound.jwt']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ token: '[redacted]', provider: 'p', msg: 'bound' });
    expect(lines[1]).toMatchObject({ headers: { authorization: '[redacted]' }, msg: 'bound twice' });
  });

  it("blanks them one level down and leaves the caller's objects as they were", () => {
    const { lines, logger } = capture();
    const headers = { authorization: 'Bearer eyJ.child.jwt', accept: 'json' };
    const call = { provider: { name: 'p', token: 'tok-123' }, headers, count: 2 };
    logger.info({ ...call, call: { privateKey: 'pk-1' } }, 'calling');
    const text = JSON.stringify(lines[0]);
    for (const secret of ['eyJ.child.jwt', 'tok-123', 'pk-1']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ count: 2, provider: { name: 'p' }, headers: { accept: 'json' } });
    expect(call.provider.token).toBe('tok-123');
    expect(headers.authorization).toBe('Bearer eyJ.child.jwt');
  });

  it('keeps an error that holds a secret an error, with its message and stack, and walks no buffer', () => {
    const { lines, logger } = capture();
    const err = Object.assign(new Error('upstream refused'), { token: 'tok-err', headers: { 'x-api-key': 'sk-1' } });
    logger.error({ err, headers: { headers: { authorization: 'Bearer nested' } }, data: Buffer.alloc(4) }, 'failed');
    const text = JSON.stringify(lines[0]);
    for (const secret of ['tok-err', 'sk-1', 'Bearer nested']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ err: { type: 'Error', message: 'upstream refused', token: '[redacted]' } });
    expect(String((lines[0].err as { stack?: string }).stack)).toContain('upstream refused');
    expect(err.token).toBe('tok-err');
  });

  it('passes an object with nothing to blank through as it is', () => {
    const plain = { route: '/v1', status: 200, nested: { ok: true }, list: [{ token: 'in-an-array' }] };
    expect(redactLogObject(plain)).toBe(plain);
  });

  it('writes JSON with the service name and, inside a request, its id and tenant', () => {
    const { lines, logger } = capture();
    requestContext.run({ requestId: 'r-1', tenant: 'acme' }, () => logger.info('hello'));
    expect(lines[0]).toMatchObject({ service: 'svc', requestId: 'r-1', tenant: 'acme', msg: 'hello', level: 30 });
  });

  it('flushes a buffering destination at once after an error, not after every line', () => {
    let flushed = 0;
    const sink = Object.assign(new Writable({ write: (_c, _e, done) => done() }), { flush: () => void flushed++ });
    const logger = createLogger('svc', 'info', sink);
    logger.info('one');
    logger.warn('two');
    expect(flushed).toBe(0);
    logger.error('three');
    expect(flushed).toBe(1);
  });
});
