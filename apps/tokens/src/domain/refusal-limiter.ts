/**
 * Slows down token guessing: after `limit` refusals from one source address within `windowMs`,
 * that address is refused outright (429) until the window ends. Memory is bounded: the oldest
 * addresses are forgotten first.
 */
export class RefusalLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly maxAddresses = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds to wait when the address is blocked now, else undefined. */
  blockedFor(address: string): number | undefined {
    const w = this.current(address);
    if (!w || w.count < this.limit) return undefined;
    return Math.max(1, Math.ceil((w.start + this.windowMs - this.now()) / 1000));
  }

  recordRefusal(address: string): void {
    const w = this.current(address);
    if (w) {
      w.count++;
      return;
    }
    if (this.windows.size >= this.maxAddresses) {
      // Maps iterate in insertion order: drop the oldest address.
      this.windows.delete(this.windows.keys().next().value as string);
    }
    this.windows.set(address, { start: this.now(), count: 1 });
  }

  private current(address: string): { start: number; count: number } | undefined {
    const w = this.windows.get(address);
    if (w && this.now() - w.start >= this.windowMs) {
      this.windows.delete(address);
      return undefined;
    }
    return w;
  }
}
