import { PlatformConfig } from '@bastion/platform';
import { IsOptional, IsString, IsUrl } from 'class-validator';

/** How the gateway verifies bearer JWTs: a JWKS URL (any OIDC issuer) or a local public key. */
export class AuthConfig extends PlatformConfig {
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AUTH_JWKS_URL?: string = undefined;

  /** PEM public key; used when AUTH_JWKS_URL is unset. Defaults to the development key. */
  @IsOptional()
  @IsString()
  AUTH_PUBLIC_KEY?: string = undefined;

  @IsString()
  AUTH_ISSUER = 'bastion-dev';

  @IsString()
  AUTH_AUDIENCE = 'bastion';
}
