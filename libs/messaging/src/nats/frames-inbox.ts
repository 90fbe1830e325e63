import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { DomainError, ErrorCode } from '@bastion/contracts';
import { FRAMES_TOKEN } from './bus-permissions';

/** The frames of one call, in order, as they arrive; once failed, the frames still to come are the failure. */
export class FrameQueue {
  private readonly waiting: Msg[] = [];
  private taker?: { resolve(msg: Msg): void; reject(err: Error): void };
  private failure?: Error;

  push(msg: Msg): void {
    const taker = this.taker;
    this.taker = undefined;
    if (taker) taker.resolve(msg);
    else this.waiting.push(msg);
  }

  /** No more frames will come (the connection closed): the waiting and every later `next` reject with `err`. */
  fail(err: Error): void {
    this.failure ??= err;
    const taker = this.taker;
    this.taker = undefined;
    taker?.reject(err);
  }

  next(): Promise<Msg> {
    const msg = this.waiting.shift();
    if (msg) return Promise.resolve(msg);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.taker = { resolve, reject }));
  }
}

/**
 * One subscription per connection for the replies and frames of every call, at
 * `<inbox prefix>.frames.<nuid>.<answerer>.<call>`, handed to each call by its last token. A
 * subscription per call cost nats-server a subscribe and an unsubscribe (and its subject cache) for
 * every request. The bus permissions let each service publish only under its own answerer token, so
 * no service can slip a reply into a call made to another; a message under another name than the
 * call's answerer is dropped.
 */
export class FramesInbox {
  private sub?: Subscription;
  private prefix = '';
  private nextCall = 0;
  private readonly calls = new Map<string, { answerer: string; frames: FrameQueue }>();

  constructor(private readonly nc: NatsConnection) {
    // A closed connection brings no more frames: the open calls fail now, not at their timeouts.
    void nc.closed().then(() => this.failAll(new DomainError(ErrorCode.UNAVAILABLE, 'the NATS connection closed')));
  }

  /** A reply subject for one call to `answerer` (a bus user) and the queue its frames arrive in; `close` when the call ends. */
  open(answerer: string): { subject: string; frames: FrameQueue; close(): void } {
    if (!this.sub) {
      const base = (this.nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix || '_INBOX';
      this.prefix = createInbox(`${base}.${FRAMES_TOKEN}`);
      const start = this.prefix.length + 1;
      this.sub = this.nc.subscribe(`${this.prefix}.*.*`, {
        callback: (err, msg) => {
          if (err) {
            // The subscription ended (a permissions error): the next call subscribes again.
            this.sub = undefined;
            this.failAll(err);
            return;
          }
          const rest = msg.subject.slice(start);
          const dot = rest.indexOf('.');
          const call = this.calls.get(rest.slice(dot + 1));
          if (call && rest.slice(0, dot) === call.answerer) call.frames.push(msg);
        },
      });
    }
    const id = String(this.nextCall++);
    const frames = new FrameQueue();
    this.calls.set(id, { answerer, frames });
    return { subject: `${this.prefix}.${answerer}.${id}`, frames, close: () => this.calls.delete(id) };
  }

  private failAll(err: Error): void {
    for (const call of this.calls.values()) call.frames.fail(err);
  }
}
