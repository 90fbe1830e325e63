import { declareEvent, ErrorCode } from '@bastion/contracts';
import { requestContext } from '@bastion/observability';
import { EventGroups, MAX_GROUP_EVENTS } from './event-groups';

class Rec {
  id!: string;
}

interface Sent {
  json: string;
  events: number;
  budgetMs: number;
  requestId: string | undefined;
  ack(): void;
  fail(err: Error): void;
}

/** Groups over a publish the test acknowledges by hand. */
function groups(maxEvents?: number) {
  const sent: Sent[] = [];
  const g = new EventGroups(
    declareEvent('test.rec.v1', Rec, 'TEST', { grouped: true }),
    (json, _id, budgetMs, events) => {
      return new Promise<void>((resolve, reject) =>
        sent.push({
          json,
          events,
          budgetMs,
          requestId: requestContext.getStore()?.requestId,
          ack: resolve,
          fail: reject,
        }),
      );
    },
    maxEvents,
  );
  return { g, sent };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('EventGroups', () => {
  afterEach(() => jest.useRealTimers());

  it('sends an event alone under its own request id, and those that waited meanwhile as one group under none', async () => {
    const { g, sent } = groups();
    const first = requestContext.run({ requestId: 'r-1' }, () => g.publishDurably({ id: 'a' }, 'a', 1000));
    const rest = ['b', 'c', 'd'].map((id) =>
      requestContext.run({ requestId: `r-${id}` }, () => g.publishDurably({ id }, id, 1000)),
    );
    await turn();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ events: 0, requestId: 'r-1' });
    sent[0].ack();
    await first;
    await turn();
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatchObject({ events: 3, requestId: undefined });
    expect(JSON.parse(sent[1].json)).toEqual([{ id: 'b' }, { id: 'c' }, { id: 'd' }]);
    sent[1].ack();
    await Promise.all(rest);
  });

  it('sends a full group at once rather than behind the publish in flight', async () => {
    const { g, sent } = groups();
    const all = Array.from({ length: 1 + MAX_GROUP_EVENTS + 5 }, (_, i) =>
      g.publishDurably({ id: `${i}` }, `${i}`, 1000),
    );
    await turn();
    // The first alone, then a full group without waiting for it; the last five wait.
    expect(sent.map((s) => s.events)).toEqual([0, MAX_GROUP_EVENTS]);
    expect(g.backlog).toBe(5);
    for (const s of sent) s.ack();
    await turn();
    await turn();
    expect(sent.map((s) => s.events)).toEqual([0, MAX_GROUP_EVENTS, 5]);
    sent[2].ack();
    await Promise.all(all);
  });

  it("fails each waiting event at its own budget, not at its group's, and keeps a later one's budget", async () => {
    // A fake clock (Date and timers): the budgets are counted to the millisecond, whatever the machine's load.
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const { g, sent } = groups();
    const head = g.publishDurably({ id: 'head' }, 'head', 60);
    const early = g.publishDurably({ id: 'early' }, 'early', 60);
    const gaveUp: string[] = [];
    void head.catch(() => gaveUp.push('head'));
    void early.catch(() => gaveUp.push('early'));
    jest.advanceTimersByTime(40);
    const late = g.publishDurably({ id: 'late' }, 'late', 2000);
    // The store stalls: the head's publish does not come back within either budget.
    jest.advanceTimersByTime(19);
    await turn();
    expect(gaveUp).toEqual([]);
    jest.advanceTimersByTime(1);
    await expect(early).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    await expect(head).rejects.toMatchObject({ code: ErrorCode.UNAVAILABLE });
    expect(sent).toHaveLength(1);
    sent[0].fail(new Error('JetStream did not answer'));
    await turn();
    // `late` leaves alone (`early` gave up) with what is left of its own budget: 2000 ms from 40, at 60.
    expect(sent).toHaveLength(2);
    expect(JSON.parse(sent[1].json)).toEqual({ id: 'late' });
    expect(sent[1].budgetMs).toBe(1980);
    sent[1].ack();
    await late;
  });

  it('sends every event alone with maxEvents 1', async () => {
    const { g, sent } = groups(1);
    const all = ['a', 'b', 'c'].map((id) => g.publishDurably({ id }, id, 1000));
    await turn();
    expect(sent.map((s) => s.events)).toEqual([0, 0, 0]);
    for (const s of sent) s.ack();
    await Promise.all(all);
  });
});
