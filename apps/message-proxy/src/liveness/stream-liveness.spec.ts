import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { NEVER, Observable } from 'rxjs';
import type { StreamFrame } from '../messages/stream-frame';
import { StreamLiveness } from './stream-liveness';

/** A NATS connection reduced to the one subscription the watcher makes. */
function fakeNats() {
  const subs: Array<{ subject: string; callback: () => void; closed: boolean }> = [];
  const nc = {
    subscribe: (subject: string, opts: { callback: () => void }) => {
      const s = { subject, callback: opts.callback, closed: false };
      subs.push(s);
      return { unsubscribe: () => (s.closed = true) };
    },
  } as unknown as NatsConnection;
  return { nc, subs };
}

const logger = { warn: () => undefined } as unknown as Logger;

describe('StreamLiveness', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('sends pings while the stream runs and stops the stream when the gateway falls silent', () => {
    const { nc, subs } = fakeNats();
    let upstreamAborted = false;
    const source = new Observable<StreamFrame>(() => () => void (upstreamAborted = true));
    const frames: StreamFrame[] = [];
    let error: unknown;
    new StreamLiveness(nc, logger)
      .watch('proxy.cancel.x', source)
      .subscribe({ next: (f) => frames.push(f), error: (e) => (error = e) });
    expect(subs[0].subject).toBe('proxy.cancel.x.alive');
    for (let i = 0; i < 6; i++) {
      jest.advanceTimersByTime(500);
      subs[0].callback(); // the gateway's heartbeat
    }
    expect(frames.filter((f) => f.kind === 'ping')).toHaveLength(6);
    expect(error).toBeUndefined();
    jest.advanceTimersByTime(2600); // no heartbeat any more
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(upstreamAborted).toBe(true);
    expect(subs[0].closed).toBe(true);
  });

  it('without a cancel subject only pings', () => {
    const { nc, subs } = fakeNats();
    const frames: StreamFrame[] = [];
    const s = new StreamLiveness(nc, logger).watch(undefined, NEVER).subscribe((f) => frames.push(f));
    jest.advanceTimersByTime(5000);
    expect(subs).toHaveLength(0);
    expect(frames).toHaveLength(10);
    s.unsubscribe();
  });
});
