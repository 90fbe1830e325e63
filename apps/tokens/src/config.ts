import { DatabaseConfig, DEV_ENCRYPTION_KEYS, refuseDevEncryptionKeysInProduction } from '@bastion/platform';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

export class TokensConfig extends DatabaseConfig {
  /** `id:base64(32 bytes)[,id:key...]`; the first seals, all open (rotation). */
  @IsString()
  TOKENS_ENCRYPTION_KEYS = DEV_ENCRYPTION_KEYS;

  /** `iss` of the site JWTs this service issues. */
  @IsString()
  TOKENS_JWT_ISSUER = 'bastion-tokens';

  /** An Ed25519 private key (PKCS#8 PEM) from configuration, used instead of the stored keys to sign. */
  @IsOptional()
  @IsString()
  TOKENS_SIGNING_KEY?: string = undefined;

  @IsOptional()
  @IsString()
  TOKENS_SIGNING_KEY_ID?: string = undefined;

  /** Refusals one source address may collect per minute before it is answered 429. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  ADMISSION_REFUSALS_PER_MINUTE = 20;

  /** How often tokens past their expiration_timestamp are moved to EXPIRED (ms). */
  @IsInt()
  @Min(100)
  EXPIRY_SWEEP_INTERVAL_MS = 1000;

  /** Admission audit rows older than this many days are deleted. */
  @IsInt()
  @Min(1)
  ADMISSION_AUDIT_RETENTION_DAYS = 90;

  /** How often the audit retention sweeper runs (ms). */
  @IsInt()
  @Min(1000)
  ADMISSION_AUDIT_SWEEP_INTERVAL_MS = 3_600_000;

  /** How often each replica reloads the signing keys, so it signs with a key another replica rotated in (ms). */
  @IsInt()
  @Min(100)
  SIGNING_KEY_REFRESH_MS = 60_000;
}

export const TOKENS_CONFIG = Symbol('TOKENS_CONFIG');

export function assertProductionReady(config: TokensConfig): void {
  refuseDevEncryptionKeysInProduction(config.NODE_ENV, 'TOKENS_ENCRYPTION_KEYS', config.TOKENS_ENCRYPTION_KEYS);
}
