import { ServerNats } from '@nestjs/microservices';
import { DomainError } from '@bastion/contracts';
import { headers, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { processState, resilientOptions } from './connection-state';
import { MAX_REPLY_PARTS, PacketDeserializer, PART_HEADER, dataBytesPerMessage } from './packet';

/**
 * Nest's NATS transport, made to last: its connection reconnects forever with backoff and jitter
 * (the library default gives up after 10 attempts, 2 s apart, and then the service is deaf until
 * restarted) and is tracked for readiness. Closing it is a drain: the subscriptions go first (no new
 * work), the handlers in flight finish within the grace period, then the connection drains.
 * Requests are read as packet.ts says, and a reply larger than the server takes in one message goes
 * in parts (PART_HEADER), which NatsRpcClient puts back together; one too large for MAX_REPLY_PARTS
 * is refused as INVALID_ARGUMENT (ask for less). `answers` picks the subjects this process subscribes to of
 * those its handlers declare (a replica that serves one lane leaves the others' subjects alone).
 */
export class ResilientServerNats extends ServerNats {
  private readonly attempts: { n: number };

  constructor(
    options: { servers: string[]; user: string; pass: string; inboxPrefix: string; queue: string; name: string },
    private readonly log: Logger,
    private readonly graceMs: number,
    private readonly answers: (subject: string) => boolean = () => true,
  ) {
    const { attempts, ...resilient } = resilientOptions();
    super({ ...options, ...resilient, deserializer: new PacketDeserializer() } as never);
    this.attempts = attempts;
  }

  override async createNatsClient(): Promise<NatsConnection> {
    const nc = (await super.createNatsClient()) as NatsConnection;
    const name = String((this as unknown as { options: { name?: string } }).options.name ?? 'service');
    processState.track(
      nc,
      `${name} transport`,
      (connected, downForMs) => {
        if (connected) this.log.warn({ connection: `${name} transport`, downForMs }, 'NATS connection back');
        else this.log.error({ connection: `${name} transport` }, 'NATS connection lost; reconnecting');
      },
      this.attempts,
    );
    return nc;
  }

  override getPublisher(natsMsg: Msg, id: string, ctx: unknown): (response: object) => void {
    if (!natsMsg.reply) return super.getPublisher(natsMsg, id, ctx as never) as (response: object) => void;
    return (response) => {
      Object.assign(response, { id });
      const out = this.serializer.serialize(response as never) as { data: string; headers?: MsgHdrs };
      const nc = (this as unknown as { natsClient: NatsConnection | null }).natsClient;
      const max = dataBytesPerMessage(nc?.info?.max_payload);
      // Three bytes of UTF-8 at most per UTF-16 unit: most replies need no count.
      if (out.data.length * 3 <= max) return natsMsg.respond(out.data, { headers: out.headers });
      const bytes = encoder.encode(out.data);
      if (bytes.length <= max) return natsMsg.respond(bytes, { headers: out.headers });
      const parts = Math.ceil(bytes.length / max);
      if (parts > MAX_REPLY_PARTS) {
        // The caller's to change (it asked for too much at once), not to retry as it is.
        const err = DomainError.invalid(
          `the answer is too large to send (${bytes.length} bytes, at most ${MAX_REPLY_PARTS * max}); ask for less at once`,
        );
        return natsMsg.respond(JSON.stringify({ id, err: err.toPayload(), isDisposed: true }));
      }
      for (let i = 0; i < parts; i++) {
        const h = out.headers ?? headers();
        h.set(PART_HEADER, `${i + 1}/${parts}`);
        natsMsg.respond(bytes.subarray(i * max, (i + 1) * max), { headers: h });
      }
    };
  }

  /**
   * Handlers are keyed by their subjects as declared (`@Handles` takes strings): a map lookup, where
   * Nest's own first tries `JSON.parse` on the subject, which throws (building a stack) per message.
   */
  override getHandlerByPattern(pattern: string): ReturnType<ServerNats['getHandlerByPattern']> {
    return this.messageHandlers.get(pattern) ?? null;
  }

  override bindEvents(client: NatsConnection): void {
    for (const subject of [...this.messageHandlers.keys()])
      if (!this.answers(subject)) this.messageHandlers.delete(subject);
    super.bindEvents(client);
  }

  override async close(): Promise<void> {
    const self = this as unknown as { natsClient: NatsConnection | null; subscriptions: Subscription[] };
    const nc = self.natsClient;
    if (!nc) return;
    for (const sub of self.subscriptions) sub.unsubscribe();
    if (processState.inFlight > 0) {
      this.log.info({ inFlight: processState.inFlight, graceMs: this.graceMs }, 'waiting for in-flight requests');
      if (!(await processState.whenIdle(this.graceMs)))
        this.log.warn({ inFlight: processState.inFlight }, 'grace period over; stopping with requests in flight');
    }
    if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
    this.statusEventEmitter.removeAllListeners();
    self.natsClient = null;
  }
}

const encoder = new TextEncoder();
