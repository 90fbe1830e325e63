import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import jwt from 'jsonwebtoken';
import { loadConfig } from '@bastion/platform';
import { AuthConfig } from './auth-config';
import { devPrivateKey, devPublicKey } from './dev-key';
import { JwtVerifier } from './jwt-verifier';

/** A JWKS endpoint on loopback serving the given public keys under their kids. */
async function serveJwks(keys: Record<string, string>): Promise<{ url: string; server: Server }> {
  const body = JSON.stringify({
    keys: Object.entries(keys).map(([kid, pem]) => ({
      ...createPublicKey(pem).export({ format: 'jwk' }),
      kid,
      use: 'sig',
    })),
  });
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks.json`, server };
}

const sign = (privateKey: string, kid: string) =>
  jwt.sign({ tenant: 'acme', roles: ['admin'] }, privateKey, {
    algorithm: 'ES256',
    keyid: kid,
    subject: 'u',
    issuer: 'bastion-dev',
    audience: 'bastion',
    expiresIn: 600,
  });

describe('JwtVerifier with a JWKS URL', () => {
  const own = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ownPrivate = own.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const ownPublic = own.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  let jwks: { url: string; server: Server };

  beforeAll(async () => {
    jwks = await serveJwks({ own: ownPublic, dev: devPublicKey() });
  });
  afterAll(() => jwks.server.close());

  const verifier = (NODE_ENV: string) => new JwtVerifier(loadConfig(AuthConfig, { AUTH_JWKS_URL: jwks.url, NODE_ENV }));

  it('accepts a token signed by a key the JWKS serves', async () => {
    await expect(verifier('production').verify(sign(ownPrivate, 'own'))).resolves.toMatchObject({ tenant: 'acme' });
  });

  it('refuses, in production, a token whose JWKS key is the public development key', async () => {
    const token = sign(devPrivateKey(), 'dev');
    await expect(verifier('production').verify(token)).resolves.toBeNull();
    await expect(verifier('development').verify(token)).resolves.toMatchObject({ tenant: 'acme' });
  });
});
