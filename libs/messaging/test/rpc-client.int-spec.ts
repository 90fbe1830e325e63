import { testNatsLogin } from '@bastion/testing';
import { randomUUID } from 'node:crypto';
import { declareRpc, DomainError, ErrorCode } from '@bastion/contracts';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../src/nats/nats-connection';
import { NatsRpcClient } from '../src/nats/rpc-client';

describe('NatsRpcClient (against the real NATS)', () => {
  let nc: NatsConnection;
  const subject = () => `test.rpc.${randomUUID()}.v1`;
  const untypedRpc = (s: string) => declareRpc<unknown>(s).returns<unknown>();

  beforeAll(async () => {
    nc = await connectNats(testNatsLogin(), { name: 'rpc-test' });
  });
  afterAll(() => nc.close());

  it('returns the response and sends the request id as a header', async () => {
    const s = subject();
    let seenId: string | undefined;
    nc.subscribe(s, { callback: (_e, m) => {
      seenId = m.headers?.get('x-request-id');
      m.respond(JSON.stringify({ response: { ok: m.json<{ data: { n: number } }>().data.n + 1 }, isDisposed: true }));
    } });
    await expect(new NatsRpcClient(nc, 1000).call(untypedRpc(s), { n: 41 }, 'req-42')).resolves.toEqual({ ok: 42 });
    expect(seenId).toBe('req-42');
  });

  it('rebuilds a domain error sent by the service', async () => {
    const s = subject();
    nc.subscribe(s, { callback: (_e, m) => {
      m.respond(JSON.stringify({ err: { code: 'NOT_FOUND', message: 'gone', details: [] }, isDisposed: true }));
    } });
    const err = await new NatsRpcClient(nc, 1000).call(untypedRpc(s), {}, 'r').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: ErrorCode.NOT_FOUND, message: 'gone' });
  });

  it('is UNAVAILABLE when nobody listens and DEADLINE_EXCEEDED when nobody answers in time', async () => {
    await expect(new NatsRpcClient(nc, 1000).call(untypedRpc(subject()), {}, 'r')).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    const silent = subject();
    nc.subscribe(silent, { callback: () => undefined });
    await expect(new NatsRpcClient(nc, 200).call(untypedRpc(silent), {}, 'r')).rejects.toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
  });

  it('answers INTERNAL, without the text, for an error that is not a domain error', async () => {
    const s = subject();
    nc.subscribe(s, { callback: (_e, m) => {
      m.respond(JSON.stringify({ err: 'stack trace with secrets', isDisposed: true }));
    } });
    await expect(new NatsRpcClient(nc, 1000).call(untypedRpc(s), {}, 'r')).rejects.toMatchObject({ code: ErrorCode.INTERNAL, message: 'internal error' });
  });
});
