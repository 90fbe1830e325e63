/**
 * Tokens whose signature and claims were checked, with what the check produced, so a client that
 * sends the same token again is not verified again. An entry lives until the token's `exp` or
 * `maxAgeMs`, whichever comes first (the latter bounds how long a revoked token still passes), and
 * at most `maxEntries` are kept (the oldest go first). Only successful checks are stored; a token
 * that differs by one character is a different key.
 */
export class VerifiedTokenCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  get(token: string, now: number): T | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.value;
  }

  /** Stores a verified token; one without a readable `exp` is not stored. */
  set(token: string, value: T, now: number): void {
    if (this.maxEntries <= 0 || this.maxAgeMs <= 0) return;
    const exp = expiryMs(token);
    if (exp === null || exp <= now) return;
    this.entries.delete(token);
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(token, { value, until: Math.min(exp, now + this.maxAgeMs) });
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The `exp` claim of a JWT in ms since the epoch, read without verifying (the caller has). */
export function expiryMs(token: string): number | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : null;
  } catch {
    return null;
  }
}
