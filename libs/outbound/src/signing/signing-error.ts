/** Signing credentials that cannot sign (a malformed key, a wrong passphrase, a missing field). */
export class SigningError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SigningError';
  }
}
