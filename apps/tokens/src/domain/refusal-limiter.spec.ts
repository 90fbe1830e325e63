import { RefusalLimiter } from './refusal-limiter';

describe('RefusalLimiter', () => {
  let t = 0;
  const limiter = () => new RefusalLimiter(3, 60_000, 2, () => t);
  beforeEach(() => (t = 1_000_000));

  it('blocks an address after the limit until the window ends', () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) {
      expect(l.blockedFor('1.2.3.4')).toBeUndefined();
      l.recordRefusal('1.2.3.4');
    }
    expect(l.blockedFor('1.2.3.4')).toBe(60);
    t += 45_000;
    expect(l.blockedFor('1.2.3.4')).toBe(15);
    t += 15_000;
    expect(l.blockedFor('1.2.3.4')).toBeUndefined();
  });

  it('counts each address apart and forgets the oldest beyond its capacity', () => {
    const l = limiter();
    for (let i = 0; i < 3; i++) l.recordRefusal('a');
    expect(l.blockedFor('b')).toBeUndefined();
    l.recordRefusal('b');
    l.recordRefusal('c');
    expect(l.blockedFor('a')).toBeUndefined();
  });
});
