/**
 * A tenant-scoped cache of what the proxy fetches over NATS (providers, projects): loaded on
 * first use, shared by concurrent misses, dropped by change events or after `ttlMs`.
 */
export class RuntimeCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; loadedAt: number }>();

  constructor(
    private readonly load: (tenant: string, ref: string) => Promise<T>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(tenant: string, ref: string): Promise<T> {
    const key = `${tenant}\u0000${ref}`;
    const hit = this.entries.get(key);
    if (hit && this.now() - hit.loadedAt < this.ttlMs) return hit.value;
    const value = this.load(tenant, ref);
    this.entries.set(key, { value, loadedAt: this.now() });
    // A failed load is not cached: the next request tries again.
    value.catch(() => this.entries.get(key)?.value === value && this.entries.delete(key));
    return value;
  }

  /** Drops every entry of the tenant whose loaded value `matches` (or that has not loaded). */
  async invalidate(tenant: string, matches: (value: T) => boolean): Promise<void> {
    for (const [key, entry] of this.entries) {
      if (!key.startsWith(`${tenant}\u0000`)) continue;
      const value = await entry.value.catch(() => undefined);
      if (value === undefined || matches(value)) this.entries.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
