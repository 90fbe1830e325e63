import { createPublicKey } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Principal } from '@bastion/contracts';
import { passportJwtSecret } from 'jwks-rsa';
import type { Algorithm } from 'jsonwebtoken';
import { Strategy, type StrategyOptionsWithoutRequest } from 'passport-jwt';
import { AuthConfig } from './auth-config';
import { principalFromClaims } from './claims';
import { DEV_ALGORITHM, devPublicKey } from './dev-key';
import { extractToken } from './extract-token';

export const JWT_STRATEGY = 'jwt';

/** passport-jwt over the platform's claims: `sub`, `tenant`, `roles`, optional `project`. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(config: AuthConfig) {
    const common = {
      jwtFromRequest: (req: { headers: Record<string, string | string[] | undefined>; url?: string }) => extractToken(req.headers, req.url),
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
      algorithms: [DEV_ALGORITHM, 'RS256', 'ES384', 'PS256'] as Algorithm[],
      ignoreExpiration: false,
    };
    const options: StrategyOptionsWithoutRequest = config.AUTH_JWKS_URL
      ? {
          ...common,
          secretOrKeyProvider: passportJwtSecret({ jwksUri: config.AUTH_JWKS_URL, cache: true, rateLimit: true, jwksRequestsPerMinute: 10 }),
        }
      : // A key object parsed once: given the PEM text, jsonwebtoken would parse it on every request.
        { ...common, secretOrKey: createPublicKey(config.AUTH_PUBLIC_KEY ?? devPublicKey()) as unknown as string };
    super(options);
  }

  validate(claims: Record<string, unknown>): Principal | false {
    return principalFromClaims(claims) ?? false;
  }
}
