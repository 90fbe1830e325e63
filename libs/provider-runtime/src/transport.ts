/** A request as it goes on the wire, after rendering and signing. */
export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

export interface IncomingResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends one request. The platform's implementation is the SSRF-guarded client of libs/outbound. */
export interface Transport {
  send(request: OutgoingRequest): Promise<IncomingResponse>;
}

export interface AwsAuth {
  accessKey: string;
  secretKey: string;
  region: string;
  service: string;
  token?: string;
}

export interface OciAuth {
  keyId: string;
  privateKeyPem: string;
  passphrase?: string;
}

/** Turn a request into the headers its signature adds (SigV4, OCI). */
export interface Signers {
  aws(request: OutgoingRequest, auth: AwsAuth): Promise<Record<string, string>>;
  oci(request: OutgoingRequest, auth: OciAuth): Record<string, string>;
}

/** Why a request got no response: the caller maps these to 502/504 or to a tester's `error`. */
export type FailureKind = 'timeout' | 'unreachable' | 'blocked_address' | 'invalid_url' | 'too_large' | 'other';

export class TransportError extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}
