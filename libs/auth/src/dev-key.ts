import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(__dirname, '..', 'dev-keys');

/** The development key pair (see dev-keys/README.md). Never for production. */
export function devPublicKey(): string {
  return readFileSync(join(DIR, 'dev-public.pem'), 'utf8');
}

export function devPrivateKey(): string {
  return readFileSync(join(DIR, 'dev-private.pem'), 'utf8');
}

export const DEV_ALGORITHM = 'ES256';
