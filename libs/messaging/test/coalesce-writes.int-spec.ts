import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { testNatsLogin, untypedRpc } from '@bastion/testing';
import { connectNats } from '../src/nats/nats-connection';
import { coalesceWrites, NatsRpcClient } from '../src/nats/rpc-client';

/** Counts the writes a connection hands to its socket (the client's transport is internal). */
function countWrites(nc: NatsConnection): () => number {
  const transport = (nc as unknown as { protocol: { transport: { send(frame: Uint8Array): unknown } } }).protocol
    .transport;
  const send = transport.send.bind(transport);
  let writes = 0;
  transport.send = (frame: Uint8Array) => {
    writes++;
    return send(frame);
  };
  return () => writes;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('coalesceWrites (against the real NATS)', () => {
  let publisher: NatsConnection;
  let receiver: NatsConnection;

  beforeAll(async () => {
    publisher = await connectNats(testNatsLogin(), { name: 'coalesce-test' });
    receiver = await connectNats(testNatsLogin(), { name: 'coalesce-receiver' });
    coalesceWrites(publisher);
    coalesceWrites(publisher); // a second call changes nothing
  });
  afterAll(async () => {
    await publisher.close();
    await receiver.close();
  });

  it('sends what one event-loop turn published in one write, in order, across microtasks', async () => {
    const subject = `test.coalesce.${randomUUID()}`;
    const got: number[] = [];
    const all = new Promise<void>((resolve) => {
      receiver.subscribe(subject, {
        callback: (_e, m) => {
          got.push(Number(m.string()));
          if (got.length === 30) resolve();
        },
      });
    });
    await receiver.flush();
    await turn();
    const writes = countWrites(publisher);
    for (let i = 0; i < 10; i++) publisher.publish(subject, String(i));
    for (let i = 10; i < 20; i++) {
      await Promise.resolve(); // microtasks in between, as handlers awaiting one another have
      publisher.publish(subject, String(i));
    }
    await turn();
    expect(writes()).toBe(1);
    for (let i = 20; i < 30; i++) publisher.publish(subject, String(i));
    await all;
    expect(writes()).toBe(2);
    expect(got).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it('still writes a large message at once', async () => {
    const subject = `test.coalesce.${randomUUID()}`;
    const received = new Promise<number>((resolve) =>
      receiver.subscribe(subject, { max: 1, callback: (_e, m) => resolve(m.data.length) }),
    );
    await receiver.flush();
    const writes = countWrites(publisher);
    publisher.publish(subject, 'x'.repeat(64 * 1024));
    publisher.publish(subject, 'y');
    expect(writes()).toBeGreaterThanOrEqual(1); // over the pending limit: written before the turn ends
    await expect(received).resolves.toBe(64 * 1024);
  });

  it('keeps request and reply working over a coalesced connection', async () => {
    const subject = `test.coalesce.${randomUUID()}.v1`;
    receiver.subscribe(subject, {
      callback: (_e, m) => {
        m.respond(JSON.stringify({ response: m.json<{ data: number }>().data * 2 }));
      },
    });
    await receiver.flush();
    const rpc = new NatsRpcClient(publisher, 10_000);
    await expect(Promise.all([1, 2, 3].map((n) => rpc.call(untypedRpc<number>(subject), n, `r${n}`)))).resolves.toEqual(
      [2, 4, 6],
    );
  });
});
