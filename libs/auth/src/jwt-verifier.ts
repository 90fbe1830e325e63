import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Principal } from '@bastion/contracts';
import jwt, { type Algorithm, type JwtHeader } from 'jsonwebtoken';
import { JwksClient } from 'jwks-rsa';
import { AuthConfig } from './auth-config';
import { lifetimeProblem, principalFromClaims } from './claims';
import { DEV_ALGORITHM, devPublicKey, isDevelopmentKey } from './dev-key';

const ALGORITHMS: Algorithm[] = [DEV_ALGORITHM, 'RS256', 'ES384', 'PS256'];

/**
 * Verifies a bearer JWT (signature, issuer, audience, expiry, lifetime, claims) and answers its
 * principal, or null. Keys come from the JWKS URL (cached) or the configured public key.
 */
export class JwtVerifier {
  private readonly key: KeyObject | undefined;
  private readonly jwks: JwksClient | undefined;

  constructor(private readonly config: AuthConfig) {
    if (config.AUTH_JWKS_URL)
      this.jwks = new JwksClient({
        jwksUri: config.AUTH_JWKS_URL,
        cache: true,
        rateLimit: true,
        jwksRequestsPerMinute: 10,
      });
    // A key object parsed once: given the PEM text, jsonwebtoken would parse it on every request.
    else this.key = createPublicKey(config.AUTH_PUBLIC_KEY ?? devPublicKey());
  }

  async verify(token: string): Promise<Principal | null> {
    let claims: Record<string, unknown>;
    try {
      claims = await new Promise((resolve, reject) =>
        jwt.verify(
          token,
          (header: JwtHeader, done: (err: Error | null, key?: KeyObject | string) => void) => {
            if (this.key) return done(null, this.key);
            this.jwks!.getSigningKey(header.kid).then(
              (k) => {
                const pem = k.getPublicKey();
                // In production, a JWKS that serves the public development key is refused as well.
                if (this.config.NODE_ENV === 'production' && isDevelopmentKey(pem))
                  return done(new Error('the JWKS serves the development key'));
                done(null, pem);
              },
              (err: Error) => done(err),
            );
          },
          { algorithms: ALGORITHMS, issuer: this.config.AUTH_ISSUER, audience: this.config.AUTH_AUDIENCE },
          (err, decoded) =>
            err || typeof decoded !== 'object' || decoded === null
              ? reject(err ?? new Error('no claims'))
              : resolve(decoded as Record<string, unknown>),
        ),
      );
    } catch {
      return null;
    }
    if (lifetimeProblem(claims, this.config.AUTH_MAX_TOKEN_LIFETIME_SECONDS)) return null;
    return principalFromClaims(claims);
  }
}
