import type { TokenState, TokenType } from '@bastion/contracts';

/** What admission needs to know of a token; the in-memory view holds one per token. */
export interface AdmissionToken {
  uid: string;
  tenant: string;
  namespace: string;
  name: string;
  state: TokenState;
  disable: boolean;
  type: TokenType;
  siteName: string;
  /** SHA-256 (hex) of a JWT token's JWT; empty for NORMAL tokens, whose secret is the uid. */
  contentHash: string;
  expiresAt: Date | null;
  maxRegistrations: number | null;
  usedRegistrations: number;
  revision: number;
}

export type RefusalReason =
  | 'unknown_token'
  | 'bad_signature'
  | 'not_valid'
  | 'disabled'
  | 'expired'
  | 'registrations_exhausted'
  | 'site_mismatch'
  /** A JWT-type token presented by its uid instead of its JWT. */
  | 'jwt_required'
  /** The node name is registered under another token. */
  | 'node_taken'
  | 'rate_limited';

export type AdmissionDecision = { admit: true } | { admit: false; reason: RefusalReason };

/**
 * The spec's promise in one place: only a VALID, enabled, unexpired token with registrations left
 * admits a site, and a JWT bound to a site admits only that site. Order matters only for the
 * audit reason; the site is told nothing but "invalid token".
 */
export function decideAdmission(token: AdmissionToken | undefined, clusterName: string, now: Date): AdmissionDecision {
  if (!token) return { admit: false, reason: 'unknown_token' };
  if (token.state !== 'VALID') return { admit: false, reason: 'not_valid' };
  if (token.disable) return { admit: false, reason: 'disabled' };
  if (token.expiresAt && token.expiresAt.getTime() <= now.getTime()) return { admit: false, reason: 'expired' };
  if (token.maxRegistrations !== null && token.usedRegistrations >= token.maxRegistrations) {
    return { admit: false, reason: 'registrations_exhausted' };
  }
  if (token.type === 'JWT' && token.siteName !== '' && token.siteName !== clusterName) {
    return { admit: false, reason: 'site_mismatch' };
  }
  return { admit: true };
}

/** A JWT has three base64url segments; anything else is presented as a NORMAL token's uid. */
export function looksLikeJwt(secret: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(secret);
}
