import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;

export class SecretBoxError extends Error {}

/**
 * AES-256-GCM envelopes for secrets at rest: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url).
 * Sealing uses the first key; opening finds the key by its id, so old keys keep opening what they
 * sealed while a new one takes over (rotation). `aad` binds a ciphertext to its owner (e.g. a row
 * id) so it cannot be moved to another row.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly currentId: string;

  constructor(keys: { id: string; key: Buffer }[]) {
    if (keys.length === 0) throw new SecretBoxError('at least one encryption key is needed');
    for (const k of keys) {
      if (k.key.length !== 32) throw new SecretBoxError(`encryption key ${k.id} must be 32 bytes`);
      if (!/^[A-Za-z0-9_-]+$/.test(k.id)) throw new SecretBoxError(`encryption key id ${k.id} must be [A-Za-z0-9_-]+`);
    }
    this.keys = new Map(keys.map((k) => [k.id, k.key]));
    this.currentId = keys[0].id;
  }

  /** Parses `id1:base64key,id2:base64key` (first is current), as the *_ENCRYPTION_KEYS variables hold. */
  static fromSpec(spec: string): SecretBox {
    const keys = spec
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((entry) => {
        const [id, b64] = entry.split(':');
        if (!id || !b64) throw new SecretBoxError('encryption keys must be written as id:base64key[,id:base64key...]');
        return { id, key: Buffer.from(b64, 'base64') };
      });
    return new SecretBox(keys);
  }

  get currentKeyId(): string {
    return this.currentId;
  }

  seal(plaintext: string, aad = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentId)!, iv);
    cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      VERSION,
      this.currentId,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      ct.toString('base64url'),
    ].join('.');
  }

  open(envelope: string, aad = ''): string {
    const [version, keyId, iv, tag, ct] = envelope.split('.');
    if (version !== VERSION || !keyId || !iv || !tag || ct === undefined)
      throw new SecretBoxError('not a sealed secret');
    const key = this.keys.get(keyId);
    if (!key) throw new SecretBoxError(`no encryption key with id ${keyId}`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('secret failed authentication (wrong key, owner or tampered data)');
    }
  }

  /**
   * The id of the key that sealed an envelope (its second dot-separated part): which key a stored
   * secret still needs, before that key is dropped from the spec.
   */
  static keyIdOf(envelope: string): string | undefined {
    return envelope.split('.')[1];
  }
}
