import { FairQueue } from './fair-queue';

describe('FairQueue', () => {
  it('takes keys in turn, each key its items in order', () => {
    const q = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3']) q.push('a', item);
    q.push('b', 'b1');
    q.push('c', 'c1');
    q.push('b', 'b2');
    const order: string[] = [];
    for (let next = q.next(); next; next = q.next()) order.push(next.item);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(q.size).toBe(0);
  });

  it('skips a key its caller holds back, and serves it again once allowed', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a1');
    q.push('a', 'a2');
    q.push('b', 'b1');
    expect(q.next((k) => k !== 'a')?.item).toBe('b1');
    expect(q.next((k) => k !== 'a')).toBeUndefined();
    expect(q.next()?.item).toBe('a1');
    expect(q.drain()).toEqual(['a2']);
    expect(q.next()).toBeUndefined();
  });
});
