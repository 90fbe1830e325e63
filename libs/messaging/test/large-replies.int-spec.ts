import { randomUUID } from 'node:crypto';
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { declareRpc, declareStream, ErrorCode } from '@bastion/contracts';
import { createLogger } from '@bastion/observability';
import { testNatsLogin, waitFor } from '@bastion/testing';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { from } from 'rxjs';
import { Handles } from '../src/nats/handles';
import { connectNats } from '../src/nats/nats-connection';
import { MAX_REPLY_PARTS, PART_HEADER, dataBytesPerMessage } from '../src/nats/packet';
import { NatsRpcClient } from '../src/nats/rpc-client';
import { closeService, startService } from '../src/nats/service-app';

const id = randomUUID();
const big = declareRpc<{ chars: number }>(`test.replies.${id}.big.v1`).returns<{ text: string }>();
const frames = declareStream<{ chars: number }>(`test.replies.${id}.frames.v1`, Object as never).frames<{
  text: string;
}>();

@Controller()
class BigController {
  @Handles(big)
  big(@Payload() p: { chars: number }) {
    // Not one repeated character: parts must join in order to read back the same text.
    return { text: Array.from({ length: Math.ceil(p.chars / 10) }, (_, i) => String(i).padStart(10, '.')).join('') };
  }

  @Handles(frames)
  frames(@Payload() p: { chars: number }) {
    return from([{ text: 'a'.repeat(p.chars) }, { text: 'short' }, { text: 'é'.repeat(p.chars) }]);
  }
}

@Module({ controllers: [BigController] })
class BigModule {}

/** Replies larger than NATS's max_payload (1 MB here) travel in parts and arrive whole. */
describe('replies larger than one NATS message (against the real NATS)', () => {
  let nc: NatsConnection;
  let rpc: NatsRpcClient;
  let service: INestMicroservice;

  beforeAll(async () => {
    service = await startService(BigModule, {
      queue: `replies-${id}`,
      nats: testNatsLogin(),
      logger: createLogger('replies-test', 'silent'),
    });
    nc = await connectNats(testNatsLogin(), { name: 'replies-test' });
    rpc = new NatsRpcClient(nc, 10_000);
  });
  afterAll(async () => {
    await nc.close();
    await closeService(service);
  });

  it('answers a 3.5 MB reply whole and in order', async () => {
    const reply = await rpc.call(big, { chars: 3_500_000 }, 'r');
    expect(reply.text).toHaveLength(3_500_000);
    expect(reply.text.slice(0, 20)).toBe('.........0.........1');
    expect(reply.text.slice(-10)).toBe('....349999');
  });

  it('joins each frame of a stream on its own, multi-byte characters across part boundaries included', async () => {
    const got: string[] = [];
    for await (const f of rpc.stream(frames, { chars: 1_500_000 }, 'r', 10_000)) got.push(f.text);
    expect(got.map((t) => t.length)).toEqual([1_500_000, 5, 1_500_000]);
    expect(got[2]).toBe('é'.repeat(1_500_000));
  });

  it('refuses a reply of more parts than a caller takes, as a request for too much', async () => {
    const max = nc.info!.max_payload;
    // Building and serialising 68M characters takes seconds on a busy machine: a patient caller.
    const patient = new NatsRpcClient(nc, 60_000);
    await expect(patient.call(big, { chars: (MAX_REPLY_PARTS + 1) * max }, 'r')).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
    });
  });

  it('gives one reply the one wait for all its parts, and refuses parts that do not fit together', async () => {
    const subject = `test.replies.${randomUUID()}.raw.v1`;
    const raw = declareRpc<object>(subject).returns<unknown>();
    // Parts of the slow reply that have reached this connection, where the caller reads them.
    let slowPartsIn = 0;
    let slowSettled = false;
    const sub = nc.subscribe(subject, {
      callback: (_e, m) => {
        const kind = m.json<{ data: { kind: string } }>().data.kind;
        const part = (at: string, data: string) => {
          const h = headers();
          h.set(PART_HEADER, at);
          m.respond(data, { headers: h });
        };
        if (kind === 'slow') {
          // 10 parts, each sent 150 ms after the one before reached this connection (the caller's:
          // a flush's PONG comes after the part), so a stalled process or server cannot bunch them:
          // each within the 500 ms wait, and all of them not, the tenth at least 1350 ms after the first.
          const send = async (i: number) => {
            if (slowSettled) return;
            part(`${i}/10`, 'x');
            await nc.flush();
            slowPartsIn = i;
            if (i < 10) setTimeout(() => void send(i + 1), 150);
          };
          void send(1);
        } else if (kind === 'changing') {
          part('1/2', '{"response":');
          part('2/3', '1}');
        } else if (kind === 'growing') {
          // The whole is reserved from the first part's size: a later part may not be larger.
          part('1/2', '{');
          part('2/2', '"response":1}');
        } else {
          part('1/2', '{"response":');
          m.respond('{"response":2,"isDisposed":true}');
        }
      },
    });
    const quick = new NatsRpcClient(nc, 500);
    await expect(quick.call(raw, { kind: 'slow' }, 'r')).rejects.toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
    // Given up on before the reply was whole (500 ms after its first part, about 4 parts in): a wait
    // per part would have taken all 10, and failed to read 'xxxxxxxxxx' as a reply.
    expect(slowPartsIn).toBeLessThan(10);
    slowSettled = true;
    // Refused as soon as the parts arrive: a wait longer than a loaded machine's stall, so that
    // the refusal is what the caller sees, not the deadline.
    const patient = new NatsRpcClient(nc, 10_000);
    await expect(patient.call(raw, { kind: 'changing' }, 'r')).rejects.toMatchObject({ code: ErrorCode.INTERNAL });
    await expect(patient.call(raw, { kind: 'unfinished' }, 'r')).rejects.toMatchObject({ code: ErrorCode.INTERNAL });
    await expect(patient.call(raw, { kind: 'growing' }, 'r')).rejects.toMatchObject({ code: ErrorCode.INTERNAL });
    sub.unsubscribe();
  });

  it('holds the replies it joins at once to its budget: too large alone, or too many at once, is refused, and a finished reply gives its share back', async () => {
    const subject = `test.replies.${randomUUID()}.budget.v1`;
    const raw = declareRpc<object>(subject).returns<unknown>();
    const chunk = 'x'.repeat(1_000_000);
    // A hostile or stuck answerer: the first of `of` parts of 1 MB, and never the rest.
    const sub = nc.subscribe(subject, {
      callback: (_e, m) => {
        const h = headers();
        h.set(PART_HEADER, `1/${m.json<{ data: { of: number } }>().data.of}`);
        m.respond(chunk, { headers: h });
      },
    });
    const client = new NatsRpcClient(nc, 5000, 4_000_000);
    await expect(client.call(raw, { of: 5 }, 'r')).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT });
    const stuck = client.call(raw, { of: 3 }, 'r').catch((e: unknown) => e);
    // The stuck reply's first part is in once the client holds its share of the budget.
    const joining = () => (client as unknown as { joining: number }).joining;
    await waitFor(() => (joining() === 3_000_000 ? true : undefined), 5000, "the stuck reply's first part");
    // 3 MB are held for the stuck reply: 2 MB more do not fit beside it.
    await expect(client.call(raw, { of: 2 }, 'r')).rejects.toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED });
    await expect(stuck).resolves.toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED });
    sub.unsubscribe();
    // Every share came back: whole replies of 3.5 MB (4 parts, reserved as 4 of the first's size),
    // one after the other, fit a 4.5 MB budget.
    const budgeted = new NatsRpcClient(nc, 10_000, 4_500_000);
    for (let i = 0; i < 5; i++)
      expect((await budgeted.call(big, { chars: 3_500_000 }, 'r')).text).toHaveLength(3_500_000);
  });
});

describe('dataBytesPerMessage', () => {
  it('leaves room for headers and is never empty, however small the server takes messages', () => {
    expect(dataBytesPerMessage(1024 * 1024)).toBe(1024 * 1024 - 16 * 1024);
    expect(dataBytesPerMessage(16 * 1024)).toBe(12 * 1024);
    expect(dataBytesPerMessage(8192)).toBe(6144);
  });
});
