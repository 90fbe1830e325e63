import { PlatformConfig } from '@bastion/platform';
import { IsInt, IsOptional, IsString, IsUrl, Min } from 'class-validator';

/** How the gateway verifies bearer JWTs: a JWKS URL (any OIDC issuer) or a local public key. */
export class AuthConfig extends PlatformConfig {
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AUTH_JWKS_URL?: string = undefined;

  /** PEM public key; used when AUTH_JWKS_URL is unset. Defaults to the development key (refused in production). */
  @IsOptional()
  @IsString()
  AUTH_PUBLIC_KEY?: string = undefined;

  @IsString()
  AUTH_ISSUER = 'bastion-dev';

  @IsString()
  AUTH_AUDIENCE = 'bastion';

  /** Longest lifetime a bearer JWT may have (exp - iat, seconds); a JWT without exp is refused. */
  @IsInt()
  @Min(60)
  AUTH_MAX_TOKEN_LIFETIME_SECONDS = 86_400;
}
