import { randomUUID } from 'node:crypto';
import type { Role } from '@bastion/contracts';
import jwt from 'jsonwebtoken';
import { DEV_ALGORITHM, devPrivateKey } from './dev-key';

export interface DevTokenOptions {
  tenant: string;
  roles: Role[];
  project?: string;
  sub?: string;
  issuer?: string;
  audience?: string;
  expiresInSeconds?: number;
}

/** Signs a bearer token with the development key, as `pnpm dev-token` and the tests do. */
export function signDevToken(o: DevTokenOptions): string {
  const claims = { tenant: o.tenant, roles: o.roles, ...(o.project ? { project: o.project } : {}) };
  return jwt.sign(claims, devPrivateKey(), {
    algorithm: DEV_ALGORITHM,
    subject: o.sub ?? `dev-user@${o.tenant}`,
    issuer: o.issuer ?? 'bastion-dev',
    audience: o.audience ?? 'bastion',
    expiresIn: o.expiresInSeconds ?? 12 * 3600,
    jwtid: randomUUID(),
  });
}
