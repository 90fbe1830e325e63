import { testNatsLogin } from '@bastion/testing';
import { randomUUID } from 'node:crypto';
import { declareLongCall, declareRpc, DomainError, ErrorCode } from '@bastion/contracts';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../src/nats/nats-connection';
import { answerLongCall } from '../src/nats/long-call';
import { NatsRpcClient } from '../src/nats/rpc-client';
import { PACKET_HEADER, PacketDeserializer } from '../src/nats/packet';

describe('NatsRpcClient (against the real NATS)', () => {
  let nc: NatsConnection;
  const subject = () => `test.rpc.${randomUUID()}.v1`;
  const untypedRpc = (s: string) => declareRpc<unknown>(s).returns<unknown>();
  const untypedLongCall = (s: string) => declareLongCall<object>(s, Object).returns<unknown>();

  beforeAll(async () => {
    nc = await connectNats(testNatsLogin(), { name: 'rpc-test' });
  });
  afterAll(() => nc.close());

  it('returns the response and sends the request id as a header', async () => {
    const s = subject();
    let seenId: string | undefined;
    nc.subscribe(s, {
      callback: (_e, m) => {
        seenId = m.headers?.get('x-request-id');
        m.respond(JSON.stringify({ response: { ok: m.json<{ data: { n: number } }>().data.n + 1 }, isDisposed: true }));
      },
    });
    await expect(new NatsRpcClient(nc, 10_000).call(untypedRpc(s), { n: 41 }, 'req-42')).resolves.toEqual({ ok: 42 });
    expect(seenId).toBe('req-42');
  });

  it("takes a call's reply only under its answerer's name: one sent under another service's is dropped", async () => {
    const s = subject();
    nc.subscribe(s, {
      callback: (_e, m) => {
        // A subject no role answers: its reply subject names the answerer `unknown`.
        const forged = m.reply!.replace('.unknown.', '.projects.');
        nc.publish(forged, JSON.stringify({ response: { who: 'forger' }, isDisposed: true }));
        setTimeout(() => m.respond(JSON.stringify({ response: { who: 'answerer' }, isDisposed: true })), 50);
      },
    });
    await expect(new NatsRpcClient(nc, 10_000).call(untypedRpc(s), {}, 'req-1')).resolves.toEqual({ who: 'answerer' });
  });

  it('rebuilds a domain error sent by the service', async () => {
    const s = subject();
    nc.subscribe(s, {
      callback: (_e, m) => {
        m.respond(JSON.stringify({ err: { code: 'NOT_FOUND', message: 'gone', details: [] }, isDisposed: true }));
      },
    });
    const err = await new NatsRpcClient(nc, 10_000).call(untypedRpc(s), {}, 'r').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: ErrorCode.NOT_FOUND, message: 'gone' });
  });

  it('is UNAVAILABLE when nobody listens and DEADLINE_EXCEEDED when nobody answers in time', async () => {
    // Nobody listening is answered at once: a timeout of 10 s tells it from a deadline.
    await expect(new NatsRpcClient(nc, 10_000).call(untypedRpc(subject()), {}, 'r')).rejects.toMatchObject({
      code: ErrorCode.UNAVAILABLE,
    });
    const silent = subject();
    nc.subscribe(silent, { callback: () => undefined });
    await expect(new NatsRpcClient(nc, 200).call(untypedRpc(silent), {}, 'r')).rejects.toMatchObject({
      code: ErrorCode.DEADLINE_EXCEEDED,
    });
  });

  it('fails a call waiting for its reply as UNAVAILABLE as soon as its connection closes, not at its timeout', async () => {
    const s = subject();
    // Heard but never answered.
    const listener = nc.subscribe(s);
    const own = await connectNats(testNatsLogin(), { name: 'rpc-test-closing' });
    const started = Date.now();
    const waiting = new NatsRpcClient(own, 10_000).call(untypedRpc(s), {}, 'req-c').catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await own.close();
    expect(await waiting).toMatchObject({ code: ErrorCode.UNAVAILABLE });
    // Well before the call's 10 s timeout, with room for a stalled test process.
    expect(Date.now() - started).toBeLessThan(5000);
    listener.unsubscribe();
  });

  it('answers INTERNAL, without the text, for an error that is not a domain error', async () => {
    const s = subject();
    nc.subscribe(s, {
      callback: (_e, m) => {
        m.respond(JSON.stringify({ err: 'stack trace with secrets', isDisposed: true }));
      },
    });
    await expect(new NatsRpcClient(nc, 10_000).call(untypedRpc(s), {}, 'r')).rejects.toMatchObject({
      code: ErrorCode.INTERNAL,
      message: 'internal error',
    });
  });

  it("sends a payload's rawBody as the message's data, and the service reads back the same payload", async () => {
    const s = subject();
    const seen: { data: string; header?: string; packet?: unknown }[] = [];
    nc.subscribe(s, {
      callback: (_e, m) => {
        const packet = new PacketDeserializer().deserialize(m) as { data: unknown };
        seen.push({ data: m.string(), header: m.headers?.get(PACKET_HEADER), packet });
        m.respond(JSON.stringify({ response: packet.data, isDisposed: true }));
      },
    });
    // Quotes, backslashes, line breaks and text beyond ASCII, in the body and beside it.
    const rawBody = JSON.stringify({ messages: [{ role: 'user', content: 'say "hi"\\ \n\r\u2028 ünï 💥' }] });
    const payload = { principal: { tenant: 'tënant\r\nx-evil: 1' }, provider: 'p', rawBody };
    const rpc = new NatsRpcClient(nc, 10_000);
    await expect(rpc.call(untypedRpc(s), payload, 'r')).resolves.toEqual(payload);
    expect(seen[0].data).toBe(rawBody);
    expect(seen[0].header).not.toContain('rawBody');
    expect(seen[0].header).toMatch(/^[\x20-\x7e]+$/);
    expect((seen[0].packet as { pattern: string }).pattern).toBe(s);
    // Without a rawBody, the packet is Nest's JSON and carries no such header.
    await expect(rpc.call(untypedRpc(s), { n: 1 }, 'r')).resolves.toEqual({ n: 1 });
    expect(seen[1].header ?? '').toBe('');
    expect(JSON.parse(seen[1].data)).toMatchObject({ pattern: s, data: { n: 1 } });
  });

  /** Answers `subject` as a Nest handler returning `answerLongCall(work, pingMs)` does: one reply per frame. */
  function longCallService(subject: string, work: () => Promise<unknown>, pingMs: number) {
    nc.subscribe(subject, {
      callback: (_e, m) => {
        answerLongCall(work, pingMs).subscribe({
          next: (frame) => m.respond(JSON.stringify({ response: frame, isDisposed: false })),
          error: () =>
            m.respond(
              JSON.stringify({ err: { code: 'UNAVAILABLE', message: 'failed', details: [] }, isDisposed: true }),
            ),
          complete: () => m.respond(JSON.stringify({ isDisposed: true })),
        });
      },
    });
  }

  it('waits for a long call longer than its RPC timeout while the service keeps pinging', async () => {
    const s = subject();
    // The work outlasts both the RPC timeout (300 ms) and the peer timeout (2 s): only the pings, every
    // 100 ms, keep the call waiting. The peer timeout leaves a stalled test process 2 s between pings.
    longCallService(s, () => new Promise((r) => setTimeout(() => r({ answer: 42 }), 3000)), 100);
    const started = Date.now();
    await expect(new NatsRpcClient(nc, 300).longCall(untypedLongCall(s), {}, 'r', 2000)).resolves.toEqual({
      answer: 42,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2950);
  });

  it('gives up on a long call within the peer timeout once the service stops pinging', async () => {
    const s = subject();
    // One ping, then silence, as from a service that died after taking the call.
    nc.subscribe(s, {
      callback: (_e, m) => void m.respond(JSON.stringify({ response: { ping: true }, isDisposed: false })),
    });
    const started = Date.now();
    await expect(new NatsRpcClient(nc, 10_000).longCall(untypedLongCall(s), {}, 'r', 400)).rejects.toMatchObject({
      code: ErrorCode.DEADLINE_EXCEEDED,
    });
    // Within the 400 ms peer timeout, give or take a stalled test process; well before the RPC timeout.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('hands each of many concurrent long calls its own frames, over one subscription for them all', async () => {
    const subscriptions = () =>
      (nc as unknown as { protocol: { subscriptions: { size(): number } } }).protocol.subscriptions.size();
    const s = subject();
    longCallService(s, () => Promise.resolve('warm'), 50);
    // A service that answers each call with its own payload after a random delay, pinging meanwhile.
    const echo = subject();
    nc.subscribe(echo, {
      callback: (_e, m) => {
        const n = m.json<{ data: { n: number } }>().data.n;
        answerLongCall(() => new Promise((r) => setTimeout(() => r(n), Math.random() * 150)), 20).subscribe({
          next: (frame) => m.respond(JSON.stringify({ response: frame, isDisposed: false })),
          complete: () => m.respond(JSON.stringify({ isDisposed: true })),
        });
      },
    });
    await nc.flush();
    const rpc = new NatsRpcClient(nc, 10_000);
    // A peer timeout of 10 s: the services ping every 20-50 ms, a stalled test process must not end a call.
    await rpc.longCall(untypedLongCall(s), {}, 'warm', 10_000);
    const before = subscriptions();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) => rpc.longCall(untypedLongCall(echo), { n }, `r${n}`, 10_000)),
    );
    expect(answers).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(subscriptions()).toBe(before);
  });
});
