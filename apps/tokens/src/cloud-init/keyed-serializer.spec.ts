import { KeyedSerializer } from './keyed-serializer';

const tick = () => new Promise((r) => setImmediate(r));

describe('KeyedSerializer', () => {
  it('runs tasks under one key one after another, in order', async () => {
    const s = new KeyedSerializer();
    const log: string[] = [];
    let release!: () => void;
    const first = s.run('k', async () => {
      log.push('first start');
      await new Promise<void>((r) => (release = r));
      log.push('first end');
      return 1;
    });
    const second = s.run('k', async () => {
      log.push('second');
      return 2;
    });
    await tick();
    expect(log).toEqual(['first start']);
    release();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(log).toEqual(['first start', 'first end', 'second']);
  });

  it('runs tasks under different keys side by side', async () => {
    const s = new KeyedSerializer();
    let release!: () => void;
    const blocked = s.run('a', () => new Promise<void>((r) => (release = r)));
    await expect(s.run('b', async () => 'b')).resolves.toBe('b');
    release();
    await blocked;
  });

  it('goes on after a failed task and forgets settled keys', async () => {
    const s = new KeyedSerializer();
    const failed = s.run('k', async () => {
      throw new Error('boom');
    });
    const next = s.run('k', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
    await tick();
    expect(s.size).toBe(0);
  });
});
