import { OutboundError } from './outbound-error';

/** What the client knew when the request failed, for the message. */
export interface FailureContext {
  /** `scheme://host[:port]` only: paths and queries can hold secrets. */
  origin: string;
  timeoutMs: number;
  maxResponseBytes: number;
  maxRequestBytes: number;
  /** The client's own deadline fired (the exchange then ends as a cancellation). */
  timedOut: boolean;
}

const UNREACHABLE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  EHOSTDOWN: 'host is down',
  EADDRNOTAVAIL: 'address not available',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'DNS lookup failed (temporary)',
  EAI_FAIL: 'DNS lookup failed',
  EAI_NODATA: 'host name has no address',
};
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ECONNABORTED', 'ESOCKETTIMEDOUT']);
const TLS_CODES = new Set([
  'EPROTO',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'HOSTNAME_MISMATCH',
]);

/**
 * Turns whatever Node threw into an OutboundError. Node keeps an underlying error as `cause` and
 * Happy Eyeballs wraps per-address failures in an AggregateError, so the codes are gathered from
 * the whole chain.
 */
export function toOutboundError(err: unknown, ctx: FailureContext): OutboundError {
  const chain = causeChain(err);
  const ours = chain.find((e): e is OutboundError => e instanceof OutboundError);
  if (ours) return ours;

  const codes = chain.map(codeOf).filter((c): c is string => !!c);
  const messages = chain.map(messageOf);
  const has = (code: string) => codes.includes(code);
  const first = (m: Readonly<Record<string, string>>) => codes.find((c) => c in m);

  if (ctx.timedOut || codes.some((c) => TIMEOUT_CODES.has(c))) {
    return new OutboundError('timeout', `${ctx.origin} did not answer within ${ctx.timeoutMs} ms`, { cause: err });
  }
  if (has('ERR_CANCELED') || has('ABORT_ERR'))
    return new OutboundError('other', `the request to ${ctx.origin} was cancelled`, { cause: err });
  const unreachable = first(UNREACHABLE);
  if (unreachable) {
    return new OutboundError(
      'unreachable',
      `cannot reach ${ctx.origin}: ${UNREACHABLE[unreachable]} (${unreachable})`,
      { cause: err },
    );
  }
  if (codes.some((c) => TLS_CODES.has(c) || /^ERR_(TLS|SSL)_|^CERT_/.test(c))) {
    // OpenSSL errors carry a short `reason` ("wrong version number") next to a long message.
    const reason = chain.map((e) => (e as { reason?: unknown }).reason).find((r): r is string => typeof r === 'string');
    return new OutboundError(
      'tls',
      `TLS with ${ctx.origin} failed: ${reason ?? messages.find(Boolean) ?? 'handshake error'}`,
      { cause: err },
    );
  }
  if (has('ERR_INVALID_URL')) return new OutboundError('invalid_url', 'the URL is not valid', { cause: err });
  return new OutboundError('other', `the request to ${ctx.origin} failed: ${messages.find(Boolean) ?? String(err)}`, {
    cause: err,
  });
}

function causeChain(err: unknown): unknown[] {
  const out: unknown[] = [];
  const visit = (e: unknown, depth: number): void => {
    if (e === undefined || e === null || depth > 8 || out.includes(e)) return;
    out.push(e);
    if (e instanceof AggregateError) for (const inner of e.errors) visit(inner, depth + 1);
    if (e instanceof Error) visit(e.cause, depth + 1);
  };
  visit(err, 0);
  return out;
}

function codeOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : '';
}
