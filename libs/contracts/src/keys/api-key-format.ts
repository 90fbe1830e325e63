import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * An API key reads `bsk_<id>_<secret>`: a recognisable prefix, the key's id (32 hex digits, not a
 * secret: it finds the stored row) and 32 random bytes in base64url (256 bits). Only the SHA-256 of
 * the secret part is stored; a secret that long needs no slow hash.
 */
export const API_KEY_PREFIX = 'bsk_';
const SHAPE = /^bsk_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;

export interface ParsedApiKey {
  /** The key's id as a UUID. */
  id: string;
  secret: string;
}

export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX);
}

export function parseApiKey(value: string): ParsedApiKey | null {
  const m = SHAPE.exec(value);
  if (!m) return null;
  const h = m[1];
  return {
    id: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`,
    secret: m[2],
  };
}

/** A new key for the id given: its value (shown once) and the hash to store. */
export function newApiKey(id: string): { value: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { value: `${API_KEY_PREFIX}${id.replace(/-/g, '').toLowerCase()}_${secret}`, hash: hashApiKeySecret(secret) };
}

export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether two hex SHA-256 hashes of secrets are the same, in constant time. */
export function apiKeyHashesMatch(presentedHash: string, storedHash: string): boolean {
  const a = Buffer.from(presentedHash, 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
