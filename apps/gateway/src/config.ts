import { AuthConfig } from '@bastion/auth';
import { IsInt, IsString, Max, Min } from 'class-validator';

export class GatewayConfig extends AuthConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  GATEWAY_PORT = 8080;

  @IsString()
  GATEWAY_HOST = '0.0.0.0';

  /**
   * Whether to take the client address from X-Forwarded-For: `false`, `true`, or comma-separated
   * addresses/CIDRs of trusted proxies. Site admission rate-limits by this address.
   */
  @IsString()
  GATEWAY_TRUST_PROXY = 'false';

  /** Largest request body accepted (bytes). */
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES = 1_048_576;

  /** Accepted tokens remembered so they are not verified again on every request (0: none). */
  @IsInt()
  @Min(0)
  AUTH_CACHE_MAX_ENTRIES = 10_000;

  /** Longest an accepted token is remembered, however late its `exp` (ms; 0: not at all). */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  AUTH_CACHE_MAX_AGE_MS = 60_000;
}

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
