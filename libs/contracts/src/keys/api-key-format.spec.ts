import { randomUUID } from 'node:crypto';
import { apiKeyHashesMatch, hashApiKeySecret, newApiKey, parseApiKey } from './api-key-format';

describe('API key format', () => {
  it('carries its id and 256 bits of secret, and matches only its own hash', () => {
    const id = randomUUID();
    const { value, hash } = newApiKey(id);
    expect(value).toMatch(/^bsk_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    const parsed = parseApiKey(value)!;
    expect(parsed.id).toBe(id);
    expect(Buffer.from(parsed.secret, 'base64url')).toHaveLength(32);
    expect(apiKeyHashesMatch(hashApiKeySecret(parsed.secret), hash)).toBe(true);
    expect(apiKeyHashesMatch(hashApiKeySecret(parseApiKey(newApiKey(id).value)!.secret), hash)).toBe(false);
    expect(hash).not.toContain(parsed.secret);
  });

  it('gives two keys two different secrets', () => {
    const id = randomUUID();
    expect(newApiKey(id).value).not.toBe(newApiKey(id).value);
  });

  it.each([
    '',
    'bsk_',
    'bsk_abc_def',
    `bsk_${'0'.repeat(32)}_${'a'.repeat(42)}`,
    `xsk_${'0'.repeat(32)}_${'a'.repeat(43)}`,
    'eyJhbGciOi.x.y',
  ])('refuses %p', (v) => expect(parseApiKey(v)).toBeNull());
});
