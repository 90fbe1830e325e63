import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(__dirname, '..', 'dev-keys');

/** The development key pair (see dev-keys/README.md). Never for production. */
export function devPublicKey(): string {
  return readFileSync(join(DIR, 'dev-public.pem'), 'utf8');
}

export function devPrivateKey(): string {
  return readFileSync(join(DIR, 'dev-private.pem'), 'utf8');
}

export const DEV_ALGORITHM = 'ES256';

/**
 * SHA-256 of a key's public part in DER (SubjectPublicKeyInfo): the same key gives the same
 * fingerprint however its PEM is wrapped, spaced or labelled, and its private key gives it too.
 */
export function keyFingerprint(key: string | KeyObject): string {
  const pub = typeof key === 'string' ? createPublicKey(key) : key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** Whether the key given is the public development key, by fingerprint. An unreadable key is not. */
let devFingerprint: string | undefined;
export function isDevelopmentKey(key: string): boolean {
  try {
    devFingerprint ??= keyFingerprint(devPublicKey());
    return keyFingerprint(key) === devFingerprint;
  } catch {
    return false;
  }
}
