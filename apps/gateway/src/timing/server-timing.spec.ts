import { remoteTimings, serverTimingHeader, splitRoundTrip } from './server-timing';

describe('remoteTimings', () => {
  it('keeps the phases the proxy may report', () => {
    expect(remoteTimings({ guard: 0.5, upstream: 12, record: 0.25 })).toEqual({
      guard: 0.5,
      upstream: 12,
      record: 0.25,
    });
  });

  it.each([undefined, null, 'fast', 3, []])('reads %p as no timing', (value) => {
    expect(remoteTimings(value)).toEqual({});
  });

  it('drops phases it does not know and values that are not durations', () => {
    expect(remoteTimings({ guard: -1, upstream: Number.NaN, record: '2', auth: 4, rpc: 1 })).toEqual({});
    expect(remoteTimings({ upstream: Infinity, guard: 0 })).toEqual({ guard: 0 });
  });
});

describe('splitRoundTrip', () => {
  it('leaves the part of the round trip the proxy does not account for as rpc', () => {
    expect(splitRoundTrip(10, { guard: 1, upstream: 6, record: 0.5 })).toEqual({
      rpc: 2.5,
      guard: 1,
      upstream: 6,
      record: 0.5,
    });
  });

  it('is the whole round trip without a report', () => {
    expect(splitRoundTrip(3.2, {})).toEqual({ rpc: 3.2 });
  });

  it('never reports a negative rpc', () => {
    expect(splitRoundTrip(5, { upstream: 5.2 })).toEqual({ rpc: 0, upstream: 5.2 });
  });
});

describe('serverTimingHeader', () => {
  it('lists the phases in order, rounded to hundredths of a millisecond', () => {
    expect(serverTimingHeader({ upstream: 12.3456, auth: 0.123, rpc: 1 })).toBe(
      'auth;dur=0.12, rpc;dur=1, upstream;dur=12.35',
    );
  });

  it('says nothing without phases', () => {
    expect(serverTimingHeader({})).toBeUndefined();
  });
});
