import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { lowercaseHeaders, type SignableRequest } from './signable-request';
import { SigningError } from './signing-error';

/** A provider template's `ociAuth`. `keyId` is `<tenancy OCID>/<user OCID>/<key fingerprint>`. */
export interface OciAuth {
  keyId: string;
  privateKeyPem: string;
  passphrase?: string;
}

const BODY_METHODS = new Set(['post', 'put', 'patch']);

/**
 * Oracle Cloud Infrastructure request signature (version 1: draft-cavage-http-signatures with
 * RSA-SHA256): the headers to add, `authorization` plus whichever of `date`, `content-type`,
 * `content-length` and `x-content-sha256` the caller did not set. The signing string is one
 * `name: value` line per signed header, in the order the `headers` parameter lists them, with
 * `(request-target)` standing for `<lowercase method> <path?query>`; requests with a body also
 * sign its length, type and base64 SHA-256, as OCI requires.
 */
export function signOciRequest(
  req: SignableRequest,
  auth: OciAuth,
  options: { now?: Date } = {},
): Record<string, string> {
  if (!auth.keyId) throw new SigningError('ociAuth.keyId is required');
  const key = privateKey(auth);
  const url = new URL(req.url);
  const method = req.method.toLowerCase();
  const given = lowercaseHeaders(req.headers);
  const added: Record<string, string> = {};
  const value = (name: string, fallback: () => string): string => given[name] ?? (added[name] = fallback());

  const values: Record<string, string> = {
    date: value('date', () => (options.now ?? new Date()).toUTCString()),
    '(request-target)': `${method} ${url.pathname}${url.search}`,
    host: given.host ?? url.host,
  };
  if (BODY_METHODS.has(method)) {
    const body = typeof req.body === 'string' ? Buffer.from(req.body, 'utf8') : Buffer.from(req.body ?? []);
    values['content-length'] = value('content-length', () => String(body.length));
    values['content-type'] = value('content-type', () => 'application/json');
    values['x-content-sha256'] = value('x-content-sha256', () => createHash('sha256').update(body).digest('base64'));
  }

  const names = Object.keys(values);
  const signingString = names.map((name) => `${name}: ${values[name]}`).join('\n');
  const signature = sign('sha256', Buffer.from(signingString, 'utf8'), key).toString('base64');
  added.authorization =
    `Signature version="1",keyId="${auth.keyId}",algorithm="rsa-sha256",` +
    `headers="${names.join(' ')}",signature="${signature}"`;
  return added;
}

function privateKey(auth: OciAuth): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: auth.privateKeyPem, format: 'pem', passphrase: auth.passphrase || undefined });
  } catch (err) {
    // Never echo the key material; say what to check instead.
    const encrypted = /ENCRYPTED/.test(auth.privateKeyPem);
    throw new SigningError(
      encrypted
        ? 'ociAuth.privateKeyPem could not be decrypted: check ociAuth.passphrase'
        : 'ociAuth.privateKeyPem is not a PEM private key (PKCS#1 or PKCS#8)',
      { cause: err },
    );
  }
  if (key.asymmetricKeyType !== 'rsa') throw new SigningError('ociAuth.privateKeyPem must be an RSA key');
  return key;
}
