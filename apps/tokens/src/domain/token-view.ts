import { createHash, timingSafeEqual } from 'node:crypto';
import type { AdmissionToken } from './admission-rules';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares two secrets in time that does not depend on where they differ. */
export function secretsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The tokens admission reads, in memory. Indexed by the hash of the secret (a NORMAL token's
 * secret is its uid), so the map lookup reveals nothing about the secret through timing, and the
 * final comparison is constant-time. An older revision never overwrites a newer one, and a deleted
 * token never comes back, so events may arrive late or twice.
 */
export class TokenView {
  private readonly byUid = new Map<string, AdmissionToken>();
  private readonly uidBySecretHash = new Map<string, string>();
  private readonly deleted = new Set<string>();

  upsert(token: AdmissionToken): void {
    if (this.deleted.has(token.uid)) return;
    const current = this.byUid.get(token.uid);
    if (current && current.revision > token.revision) return;
    this.byUid.set(token.uid, token);
    this.uidBySecretHash.set(sha256Hex(token.uid), token.uid);
  }

  remove(uid: string): void {
    this.deleted.add(uid);
    this.byUid.delete(uid);
    this.uidBySecretHash.delete(sha256Hex(uid));
  }

  get(uid: string): AdmissionToken | undefined {
    return this.byUid.get(uid);
  }

  /** The NORMAL token whose secret (uid) this is. */
  findBySecret(secret: string): AdmissionToken | undefined {
    const uid = this.uidBySecretHash.get(sha256Hex(secret));
    if (uid === undefined || !secretsEqual(uid, secret)) return undefined;
    return this.byUid.get(uid);
  }

  wasDeleted(uid: string): boolean {
    return this.deleted.has(uid);
  }

  get size(): number {
    return this.byUid.size;
  }
}
