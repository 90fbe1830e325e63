/**
 * Work waiting per key (a tenant), taken round-robin across keys: a key with a thousand items
 * waiting and a key with one take turns, so the one waits for at most one item of each other key,
 * not for the thousand. `next` skips keys the caller says may not run more now (their cap).
 */
export class FairQueue<T> {
  private readonly waiting = new Map<string, T[]>();
  /** Keys with work waiting, in turn order: the next key to serve first. */
  private turn: string[] = [];

  get size(): number {
    let n = 0;
    for (const items of this.waiting.values()) n += items.length;
    return n;
  }

  /** Items waiting for `key`. */
  count(key: string): number {
    return this.waiting.get(key)?.length ?? 0;
  }

  push(key: string, item: T): void {
    const items = this.waiting.get(key);
    if (items) items.push(item);
    else {
      this.waiting.set(key, [item]);
      this.turn.push(key);
    }
  }

  /** The oldest item of the first key in turn that `mayRun` allows; that key goes to the back of the turn. */
  next(mayRun: (key: string) => boolean = () => true): { key: string; item: T } | undefined {
    const at = this.turn.findIndex(mayRun);
    if (at < 0) return undefined;
    const key = this.turn[at];
    const items = this.waiting.get(key) as T[];
    const item = items.shift() as T;
    this.turn.splice(at, 1);
    if (items.length) this.turn.push(key);
    else this.waiting.delete(key);
    return { key, item };
  }

  /** Removes and returns everything waiting. */
  drain(): T[] {
    const all = [...this.waiting.values()].flat();
    this.waiting.clear();
    this.turn = [];
    return all;
  }
}
