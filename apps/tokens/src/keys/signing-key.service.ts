import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Jwks } from '@bastion/contracts';
import { SecretBox } from '@bastion/platform';
import {
  calculateJwkThumbprint,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importJWK,
  importPKCS8,
  type JWK,
  jwtVerify,
  SignJWT,
  type CryptoKey,
  type JWTPayload,
} from 'jose';
import { TOKENS_CONFIG, type TokensConfig } from '../config';
import { SigningKeyRepository } from './signing-key.repository';

const ALG = 'EdDSA';

interface LoadedKey {
  kid: string;
  publicJwk: JWK;
  publicKey: CryptoKey;
  privateKey?: CryptoKey;
}

export interface SiteJwtClaims {
  tokenUid: string;
  tenant: string;
  siteName?: string;
  expiresAt?: Date | null;
}

export interface VerifiedSiteJwt {
  tokenUid: string;
  tenant: string;
  siteName?: string;
}

/**
 * Ed25519 keys for site JWTs. Keys live in the tokens schema with the private half sealed
 * (AES-256-GCM), or one comes from configuration. A rotation retires the active key: it stops
 * signing but stays in the JWKS and keeps verifying what it signed.
 */
@Injectable()
export class SigningKeyService implements OnModuleInit, OnModuleDestroy {
  private keys = new Map<string, LoadedKey>();
  private activeKid?: string;
  private refreshTimer?: NodeJS.Timeout;
  private lastReload = 0;
  private readonly box: SecretBox;

  constructor(
    private readonly repo: SigningKeyRepository,
    @Inject(TOKENS_CONFIG) private readonly config: TokensConfig,
  ) {
    this.box = SecretBox.fromSpec(config.TOKENS_ENCRYPTION_KEYS);
  }

  async onModuleInit(): Promise<void> {
    await this.reload();
    if (!this.activeKid) {
      await this.repo.activate(await this.newKey(), true);
      await this.reload();
    }
    this.refreshTimer = setInterval(
      () => void this.reload().catch(() => undefined),
      this.config.SIGNING_KEY_REFRESH_MS,
    );
    this.refreshTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.refreshTimer);
  }

  /** Creates a new active key and retires the previous one. */
  async rotate(): Promise<string> {
    const key = await this.newKey();
    await this.repo.activate(key, false);
    await this.reload();
    return key.kid;
  }

  async sign(claims: SiteJwtClaims): Promise<string> {
    const key = this.activeKid ? this.keys.get(this.activeKid) : undefined;
    if (!key?.privateKey) throw new Error('no active signing key');
    const jwt = new SignJWT({ tenant: claims.tenant, ...(claims.siteName ? { site_name: claims.siteName } : {}) })
      .setProtectedHeader({ alg: ALG, kid: key.kid, typ: 'JWT' })
      .setIssuer(this.config.TOKENS_JWT_ISSUER)
      .setSubject(claims.tokenUid)
      .setIssuedAt()
      .setJti(randomUUID());
    if (claims.expiresAt) jwt.setExpirationTime(Math.floor(claims.expiresAt.getTime() / 1000));
    return jwt.sign(key.privateKey);
  }

  /** Verifies signature, issuer and expiry; undefined when any fails. */
  async verify(token: string): Promise<VerifiedSiteJwt | undefined> {
    try {
      const { payload } = await jwtVerify(token, (header) => this.publicKeyFor(header.kid), {
        issuer: this.config.TOKENS_JWT_ISSUER,
        algorithms: [ALG],
      });
      return toVerified(payload);
    } catch {
      return undefined;
    }
  }

  jwks(): Jwks {
    return { keys: [...this.keys.values()].map((k) => ({ ...k.publicJwk, kid: k.kid, alg: ALG, use: 'sig' })) };
  }

  private async publicKeyFor(kid: string | undefined): Promise<CryptoKey> {
    if (!kid) throw new Error('no kid');
    if (!this.keys.has(kid) && Date.now() - this.lastReload > 1000) await this.reload();
    const key = this.keys.get(kid);
    if (!key) throw new Error(`unknown kid ${kid}`);
    return key.publicKey;
  }

  private async reload(): Promise<void> {
    this.lastReload = Date.now();
    const next = new Map<string, LoadedKey>();
    let active: string | undefined;
    for (const row of await this.repo.all()) {
      const publicJwk = row.publicJwk as JWK;
      const loaded: LoadedKey = { kid: row.kid, publicJwk, publicKey: (await importJWK(publicJwk, ALG)) as CryptoKey };
      if (row.status === 'ACTIVE') {
        loaded.privateKey = await importPKCS8(this.box.open(row.privateKey, row.kid), ALG);
        active = row.kid;
      }
      next.set(row.kid, loaded);
    }
    const configured = await this.configuredKey();
    if (configured) {
      next.set(configured.kid, configured);
      active = configured.kid;
    }
    this.keys = next;
    this.activeKid = active;
  }

  private async configuredKey(): Promise<LoadedKey | undefined> {
    if (!this.config.TOKENS_SIGNING_KEY) return undefined;
    const privateKey = await importPKCS8(this.config.TOKENS_SIGNING_KEY, ALG, { extractable: true });
    const { d: _private, ...publicJwk } = await exportJWK(privateKey);
    const kid = this.config.TOKENS_SIGNING_KEY_ID ?? (await calculateJwkThumbprint(publicJwk));
    return { kid, publicJwk, privateKey, publicKey: (await importJWK(publicJwk, ALG)) as CryptoKey };
  }

  private async newKey() {
    const { publicKey, privateKey } = await generateKeyPair(ALG, { crv: 'Ed25519', extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    return { kid, algorithm: ALG, publicJwk, privateKey: this.box.seal(await exportPKCS8(privateKey), kid) };
  }
}

function toVerified(payload: JWTPayload): VerifiedSiteJwt | undefined {
  const { sub, tenant, site_name: siteName } = payload as JWTPayload & { tenant?: unknown; site_name?: unknown };
  if (typeof sub !== 'string' || typeof tenant !== 'string') return undefined;
  return { tokenUid: sub, tenant, ...(typeof siteName === 'string' ? { siteName } : {}) };
}
