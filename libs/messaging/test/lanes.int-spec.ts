import { randomUUID } from 'node:crypto';
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { type RpcContract, declareRpc, ErrorCode } from '@bastion/contracts';
import { createLogger } from '@bastion/observability';
import { testNatsLogin } from '@bastion/testing';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { Handles } from '../src/nats/handles';
import { connectNats } from '../src/nats/nats-connection';
import { PacketDeserializer } from '../src/nats/packet';
import { NatsRpcClient } from '../src/nats/rpc-client';
import { closeService, startService } from '../src/nats/service-app';

/** A request and its twin on a lane of its own, which falls back to the request's subject. */
function laned(): { base: RpcContract<object, unknown>; lane: RpcContract<object, unknown> } {
  const id = randomUUID();
  const base = declareRpc<object>(`test.lanes.${id}.v1`).returns<unknown>();
  return { base, lane: { ...base, subject: `test.lanes.bulk.${id}.v1`, orElse: base.subject } };
}

describe('request lanes (against the real NATS)', () => {
  let nc: NatsConnection;
  let rpc: NatsRpcClient;

  beforeAll(async () => {
    nc = await connectNats(testNatsLogin(), { name: 'lanes-test' });
    rpc = new NatsRpcClient(nc, 10_000);
  });
  afterAll(() => nc.close());

  it("sends a lane's request to the lane when a process answers there, else to the request's own subject", async () => {
    const { base, lane } = laned();
    const seen: { subject: string; rawBody?: string }[] = [];
    const answer = (who: string) => ({
      callback: (_e: unknown, m: Msg) => {
        const packet = new PacketDeserializer().deserialize(m) as { data: { rawBody?: string } };
        seen.push({ subject: m.subject, rawBody: packet.data.rawBody });
        m.respond(JSON.stringify({ response: { who }, isDisposed: true }));
      },
    });
    const baseSub = nc.subscribe(base.subject, answer('standard'));
    // Nobody on the lane: the same packet (its raw body included) goes to the request's own subject.
    await expect(rpc.call(lane, { rawBody: '{"big":true}' }, 'r1')).resolves.toEqual({ who: 'standard' });
    expect(seen).toEqual([{ subject: base.subject, rawBody: '{"big":true}' }]);

    const laneSub = nc.subscribe(lane.subject, answer('bulk'));
    await nc.flush();
    await expect(rpc.call(lane, { rawBody: 'x' }, 'r2')).resolves.toEqual({ who: 'bulk' });
    // The request's own subject stays as it was.
    await expect(rpc.call(base, { rawBody: 'y' }, 'r3')).resolves.toEqual({ who: 'standard' });
    expect(seen.map((s) => s.subject)).toEqual([base.subject, lane.subject, base.subject]);
    baseSub.unsubscribe();
    laneSub.unsubscribe();
  });

  it('is UNAVAILABLE when nobody answers on the lane or on its fallback', async () => {
    const { lane } = laned();
    await expect(rpc.call(lane, {}, 'r')).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
  });

  describe('a service that answers one lane', () => {
    const { base, lane } = laned();

    @Controller()
    class EchoController {
      @Handles(base, lane)
      echo(@Payload() p: object) {
        return { echoed: p };
      }
    }

    @Module({ controllers: [EchoController] })
    class EchoModule {}

    let bulkOnly: INestMicroservice;

    beforeAll(async () => {
      bulkOnly = await startService(EchoModule, {
        queue: `lanes-${randomUUID()}`,
        nats: testNatsLogin(),
        logger: createLogger('lanes-test', 'error'),
        answers: (subject) => subject === lane.subject,
      });
    });
    afterAll(() => closeService(bulkOnly));

    it('subscribes to the subjects its filter keeps of those its handlers declare, and to no other', async () => {
      await expect(rpc.call(lane, {}, 'r')).resolves.toEqual({ echoed: {} });
      // Its handler declares the request's own subject too, but this process does not answer there.
      await expect(rpc.call(base, {}, 'r')).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    });
  });
});
