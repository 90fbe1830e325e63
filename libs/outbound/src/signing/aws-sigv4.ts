import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { lowercaseHeaders, type SignableRequest } from './signable-request';
import { SigningError } from './signing-error';

/** A provider template's `awsAuth`. An empty `token` means none (templates hold strings only). */
export interface AwsAuth {
  accessKey: string;
  secretKey: string;
  region: string;
  service: string;
  token?: string;
}

export interface AwsSigningOptions {
  /** Signing time (default now). */
  now?: Date;
  /**
   * Also send and sign `x-amz-content-sha256`, as the AWS SDKs do (default true). S3 requires it,
   * other services accept it; AWS's published test vectors are computed without it.
   */
  contentSha256Header?: boolean;
}

/**
 * AWS Signature Version 4 for a request: the headers to add to it (`authorization`,
 * `x-amz-date`, and `x-amz-security-token` / `x-amz-content-sha256` when they apply). Every
 * header the caller set is signed, `host` included (taken from the URL as Node will send it).
 */
export async function signAwsRequest(
  req: SignableRequest,
  auth: AwsAuth,
  options: AwsSigningOptions = {},
): Promise<Record<string, string>> {
  for (const field of ['accessKey', 'secretKey', 'region', 'service'] as const) {
    if (!auth[field]) throw new SigningError(`awsAuth.${field} is required`);
  }
  const url = new URL(req.url);
  const given = lowercaseHeaders(req.headers);
  const signer = new SignatureV4({
    credentials: {
      accessKeyId: auth.accessKey,
      secretAccessKey: auth.secretKey,
      sessionToken: auth.token || undefined,
    },
    region: auth.region,
    service: auth.service,
    sha256: Sha256,
    // S3 signs the path as sent; every other service signs it encoded once more.
    uriEscapePath: auth.service !== 's3',
    applyChecksum: options.contentSha256Header ?? true,
  });
  const signed = await signer.sign(
    {
      method: req.method.toUpperCase(),
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query: parseQuery(url.search),
      headers: { ...given, host: given.host ?? url.host },
      body: req.body,
    },
    { signingDate: options.now ?? new Date() },
  );
  const added: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) {
    if (name !== 'host' && given[name] !== value) added[name] = value;
  }
  return added;
}

/**
 * The raw query as name -> value(s), decoded once. The signer re-encodes with RFC 3986 rules;
 * URLSearchParams would read "+" as a space, which is not what the server receives.
 */
function parseQuery(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const part of search.replace(/^\?/, '').split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    const prev = query[name];
    query[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return query;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
