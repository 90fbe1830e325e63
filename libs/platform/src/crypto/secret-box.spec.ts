import { randomBytes } from 'node:crypto';
import { DEV_ENCRYPTION_KEYS, refuseDevEncryptionKeysInProduction } from './dev-encryption-keys';
import { SecretBox, SecretBoxError } from './secret-box';

const key = () => randomBytes(32);

describe('SecretBox', () => {
  it('seals and opens, never writing the plaintext', () => {
    const box = new SecretBox([{ id: 'k1', key: key() }]);
    const sealed = box.seal('sk-live-123', 'row-1');
    expect(sealed).not.toContain('sk-live');
    expect(sealed.startsWith('v1.k1.')).toBe(true);
    expect(box.open(sealed, 'row-1')).toBe('sk-live-123');
    expect(box.seal('x')).not.toBe(box.seal('x'));
  });

  it('refuses tampering, another owner and an unknown key', () => {
    const box = new SecretBox([{ id: 'k1', key: key() }]);
    const sealed = box.seal('secret', 'row-1');
    const parts = sealed.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'row-1')).toThrow(SecretBoxError);
    expect(() => box.open(sealed, 'row-2')).toThrow(SecretBoxError);
    expect(() => new SecretBox([{ id: 'k2', key: key() }]).open(sealed, 'row-1')).toThrow(
      'no encryption key with id k1',
    );
  });

  it('rotates: a new current key seals, the old one still opens', () => {
    const k1 = key();
    const old = new SecretBox([{ id: 'k1', key: k1 }]);
    const sealedByOld = old.seal('a');
    const rotated = SecretBox.fromSpec(`k2:${key().toString('base64')},k1:${k1.toString('base64')}`);
    expect(rotated.open(sealedByOld)).toBe('a');
    expect(SecretBox.keyIdOf(rotated.seal('b'))).toBe('k2');
  });

  it('refuses keys of the wrong size or malformed specs', () => {
    expect(() => new SecretBox([{ id: 'k', key: randomBytes(16) }])).toThrow('32 bytes');
    expect(() => SecretBox.fromSpec('no-colon')).toThrow(SecretBoxError);
  });
});

describe('the development encryption key', () => {
  it('is refused in production and allowed elsewhere', () => {
    expect(() => refuseDevEncryptionKeysInProduction('production', 'X_KEYS', DEV_ENCRYPTION_KEYS)).toThrow(
      'X_KEYS must be set in production',
    );
    expect(() => refuseDevEncryptionKeysInProduction('development', 'X_KEYS', DEV_ENCRYPTION_KEYS)).not.toThrow();
    expect(() =>
      refuseDevEncryptionKeysInProduction('production', 'X_KEYS', `k1:${randomBytes(32).toString('base64')}`),
    ).not.toThrow();
  });
});
