import type { ExecutionContext } from '@nestjs/common';
import { DomainError, ErrorCode } from '@bastion/contracts';
import { Subject } from 'rxjs';
import { TenantGate, TenantGateInterceptor } from './tenant-gate';

const settled = async <T>(p: Promise<T>): Promise<boolean> => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('TenantGate', () => {
  it("lets a tenant's calls through up to its bytes in flight, then one at a time as bytes come free", async () => {
    const gate = new TenantGate(1000, 10);
    const a1 = await gate.acquire('a', 600);
    const a2 = gate.acquire('a', 600);
    expect(await settled(a2)).toBe(false);
    expect(gate.load('a')).toEqual({ running: 1, waiting: 1, bytes: 600 });
    a1();
    expect(await settled(a2)).toBe(true);
    (await a2)();
    expect(gate.load('a')).toEqual({ running: 0, waiting: 0, bytes: 0 });
  });

  it("never holds one tenant's calls up behind another's", async () => {
    const gate = new TenantGate(1000, 10);
    await gate.acquire('a', 1000);
    const queued = gate.acquire('a', 10);
    expect(await settled(queued)).toBe(false);
    expect(await settled(gate.acquire('b', 900))).toBe(true);
  });

  it('runs a call larger than the limit alone, and keeps first come first served', async () => {
    const gate = new TenantGate(1000, 10);
    const big = await gate.acquire('a', 5000);
    const small = gate.acquire('a', 1);
    expect(await settled(small)).toBe(false);
    big();
    expect(await settled(small)).toBe(true);
    const release = await small;
    const big2 = gate.acquire('a', 5000);
    // A small call behind a waiting big one waits too: it may not overtake.
    const small2 = gate.acquire('a', 1);
    expect(await settled(big2)).toBe(false);
    expect(await settled(small2)).toBe(false);
    release();
    expect(await settled(big2)).toBe(true);
    expect(await settled(small2)).toBe(false);
  });

  it('refuses a call past the waiting room with a retryable RESOURCE_EXHAUSTED', async () => {
    const gate = new TenantGate(100, 1);
    await gate.acquire('a', 100);
    void gate.acquire('a', 100);
    const err = await gate.acquire('a', 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, retryAfter: 1 });
  });

  describe('with a rate of bytes a second', () => {
    let clock = 0;
    const paced = (maxWaitMs = 3000) =>
      new TenantGate(10_000, 10, { bytesPerSecond: 1000, burstBytes: 2000, maxWaitMs }, () => clock);
    beforeEach(() => {
      clock = 0;
      jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    });
    afterEach(() => jest.useRealTimers());

    it('lets a burst through at once, then holds the next call until the debt is paid', async () => {
      const gate = paced();
      // 2,500 bytes: the burst and 500 owed.
      (await gate.acquire('a', 1500))();
      (await gate.acquire('a', 1000))();
      const next = gate.acquire('a', 10);
      expect(await settled(next)).toBe(false);
      // Another tenant is not held up.
      expect(await settled(gate.acquire('b', 1500))).toBe(true);
      clock += 400;
      jest.advanceTimersByTime(400);
      expect(await settled(next)).toBe(false);
      clock += 100;
      jest.advanceTimersByTime(100);
      expect(await settled(next)).toBe(true);
    });

    it('refuses at once, with that wait as Retry-After, a call that would wait past the longest wait', async () => {
      const gate = paced(1000);
      (await gate.acquire('a', 2000))();
      (await gate.acquire('a', 2500))();
      const err = await gate.acquire('a', 1).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, retryAfter: 3 });
      clock += 1500;
      expect(await settled(gate.acquire('a', 1))).toBe(false);
    });

    it('tells, before a body is read, the refusal acquire would give for the rate, and only then', async () => {
      const gate = paced(1000);
      expect(gate.refusal('a')).toBeUndefined();
      (await gate.acquire('a', 2000))();
      expect(gate.refusal('a')).toBeUndefined();
      (await gate.acquire('a', 2500))();
      expect(gate.refusal('a')).toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, retryAfter: 3 });
      expect(gate.refusal('b')).toBeUndefined();
      // 2,500 owed at 1,000 a second: within the longest wait (1 s) after 1.5 s.
      clock += 1500;
      expect(gate.refusal('a')).toBeUndefined();
    });

    it('does not hand a tenant a fresh burst for having nothing in flight', async () => {
      const gate = paced();
      (await gate.acquire('a', 1900))();
      // Nothing runs or waits: the tenant is kept, with the 100 bytes it has left.
      (await gate.acquire('a', 150))();
      expect(await settled(gate.acquire('a', 1))).toBe(false);
    });

    it('counts the calls waiting before a new one in its wait, and refuses it past the longest wait', async () => {
      const gate = paced(3000);
      (await gate.acquire('a', 2000))();
      (await gate.acquire('a', 1000))(); // 1,000 owed
      const waiting = [gate.acquire('a', 1000), gate.acquire('a', 1000)]; // due at 1 s and 2 s
      const third = gate.acquire('a', 1000); // at 3 s: not past the longest wait
      expect(gate.load('a').waiting).toBe(3);
      const err = await gate.acquire('a', 1000).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, retryAfter: 4 });
      for (let t = 0; t < 3; t++) {
        clock += 1000;
        jest.advanceTimersByTime(1000);
        await new Promise((r) => setImmediate(r));
      }
      expect(await settled(Promise.all([...waiting, third]))).toBe(true);
    });

    it('forgets an idle tenant once its credit is whole again, and wakes a waiter of a tenant that came back', async () => {
      const gate = paced();
      (await gate.acquire('a', 1900))();
      expect(gate.known).toBe(1);
      clock += 1900;
      jest.advanceTimersByTime(1900);
      expect(gate.known).toBe(0);
      (await gate.acquire('b', 1900))();
      (await gate.acquire('b', 150))(); // back before it was forgotten: 50 owed
      const next = gate.acquire('b', 1);
      expect(await settled(next)).toBe(false);
      clock += 50;
      jest.advanceTimersByTime(50);
      expect(await settled(next)).toBe(true);
    });

    it('forgets nothing when unpaced: bytes in flight alone decide', async () => {
      const gate = new TenantGate(10_000, 10);
      for (let i = 0; i < 100; i++) (await gate.acquire('a', 5000))();
      expect(gate.load('a')).toEqual({ running: 0, waiting: 0, bytes: 0 });
    });
  });

  it('counts a release once, however often it is called', async () => {
    const gate = new TenantGate(100, 10);
    const r1 = await gate.acquire('a', 100);
    const r2 = gate.acquire('a', 100);
    r1();
    r1();
    expect(gate.load('a')).toEqual({ running: 1, waiting: 0, bytes: 100 });
    (await r2)();
  });
});

describe('TenantGateInterceptor', () => {
  const context = (headers: Record<string, string>, bodyBytes?: number, socket = { destroyed: false }) =>
    ({
      switchToHttp: () => ({
        getRequest: () => ({ user: { tenant: 't' }, headers, bodyBytes, raw: { socket } }),
      }),
    }) as unknown as ExecutionContext;
  const held = () => {
    const subject = new Subject<unknown>();
    return { handler: { handle: () => subject.asObservable() }, finish: () => subject.complete() };
  };

  it('counts a chunked body (no Content-Length) by what was read, not as nothing', async () => {
    const gate = new TenantGate(100, 10);
    const interceptor = new TenantGateInterceptor(gate);
    const first = held();
    interceptor.intercept(context({}, 80), first.handler).subscribe();
    await new Promise((r) => setImmediate(r));
    expect(gate.load('t')).toEqual({ running: 1, waiting: 0, bytes: 80 });
    interceptor.intercept(context({}, 80), held().handler).subscribe();
    await new Promise((r) => setImmediate(r));
    expect(gate.load('t').waiting).toBe(1);
    first.finish();
    await new Promise((r) => setImmediate(r));
    expect(gate.load('t')).toEqual({ running: 1, waiting: 0, bytes: 80 });
    // With a Content-Length, that is what counts.
    interceptor.intercept(context({ 'content-length': '10' }, 80), held().handler).subscribe();
    await new Promise((r) => setImmediate(r));
    expect(gate.load('t')).toEqual({ running: 2, waiting: 0, bytes: 90 });
  });

  it('counts a call with no body as none', async () => {
    const gate = new TenantGate(100, 10);
    const interceptor = new TenantGateInterceptor(gate);
    interceptor.intercept(context({}), held().handler).subscribe();
    await new Promise((r) => setImmediate(r));
    expect(gate.load('t')).toEqual({ running: 1, waiting: 0, bytes: 0 });
  });

  it('does not call for a client that left while its call waited, and frees its turn', async () => {
    const gate = new TenantGate(100, 10);
    const interceptor = new TenantGateInterceptor(gate);
    const first = held();
    interceptor.intercept(context({ 'content-length': '100' }), first.handler).subscribe();
    const socket = { destroyed: false };
    const handle = jest.fn(() => new Subject<unknown>().asObservable());
    const answers: unknown[] = [];
    interceptor
      .intercept(context({ 'content-length': '100' }, undefined, socket), { handle })
      .subscribe((v) => answers.push(v));
    await new Promise((r) => setImmediate(r));
    expect(gate.load('t').waiting).toBe(1);
    socket.destroyed = true;
    first.finish();
    await new Promise((r) => setImmediate(r));
    expect(handle).not.toHaveBeenCalled();
    expect(answers).toEqual([undefined]);
    expect(gate.load('t')).toEqual({ running: 0, waiting: 0, bytes: 0 });
  });
});
