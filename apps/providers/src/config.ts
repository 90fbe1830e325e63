import { parseAllowlist } from '@bastion/outbound';
import { DatabaseConfig, DEV_ENCRYPTION_KEYS, refuseDevEncryptionKeysInProduction } from '@bastion/platform';
import { IsInt, IsString, Min } from 'class-validator';

export class ProvidersConfig extends DatabaseConfig {
  /** `id:base64(32 bytes)[,id:key...]`; the first seals, all open (rotation). */
  @IsString()
  PROVIDERS_ENCRYPTION_KEYS = DEV_ENCRYPTION_KEYS;

  /** Hosts, host:port pairs, IPs or CIDRs the provider tester may reach although private. */
  @IsString()
  OUTBOUND_ALLOWLIST = '';

  /** Default timeout of a provider test when the template sets none (ms). */
  @IsInt()
  @Min(100)
  PROVIDER_TEST_TIMEOUT_MS = 30_000;
}

export const PROVIDERS_CONFIG = Symbol('PROVIDERS_CONFIG');
export const PROVIDERS_LOGGER = Symbol('PROVIDERS_LOGGER');

/** Checks what class-validator cannot: a malformed allowlist stops the process at boot, naming the entry. */
export function assertProductionReady(config: ProvidersConfig): void {
  parseAllowlist(config.OUTBOUND_ALLOWLIST);
  refuseDevEncryptionKeysInProduction(config.NODE_ENV, 'PROVIDERS_ENCRYPTION_KEYS', config.PROVIDERS_ENCRYPTION_KEYS);
}
