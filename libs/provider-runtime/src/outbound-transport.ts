import { type OutboundClient, OutboundError, signAwsRequest, signOciRequest } from '@bastion/outbound';
import { type FailureKind, type Signers, type Transport, TransportError } from './transport';

/** Sends provider requests through the platform's SSRF-guarded client. */
export function outboundTransport(client: OutboundClient): Transport {
  return {
    async send(request) {
      try {
        const res = await client.request({
          method: request.method,
          url: request.url,
          headers: request.headers,
          body: request.body,
          timeoutMs: request.timeoutMs,
        });
        return { statusCode: res.status, headers: res.headers, body: res.body.toString('utf8') };
      } catch (err) {
        if (err instanceof OutboundError) throw new TransportError(failureOf(err.kind), err.message);
        throw err;
      }
    },
  };
}

export const outboundSigners: Signers = {
  aws: (request, auth) => signAwsRequest(request, auth),
  oci: (request, auth) => signOciRequest(request, auth),
};

function failureOf(kind: OutboundError['kind']): FailureKind {
  switch (kind) {
    case 'timeout':
    case 'blocked_address':
    case 'invalid_url':
    case 'too_large':
    case 'unreachable':
      return kind;
    case 'tls':
      return 'unreachable';
    default:
      return 'other';
  }
}
