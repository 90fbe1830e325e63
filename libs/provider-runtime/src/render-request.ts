import type { RequestTemplateView } from '@bastion/contracts';
import { renderTemplate, type TemplateScope, TemplateError } from '@bastion/templates';
import type { AwsAuth, OciAuth, OutgoingRequest } from './transport';

export interface RenderedRequest {
  request: OutgoingRequest;
  awsAuth?: AwsAuth;
  ociAuth?: OciAuth;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Renders a provider template's request part (everything but `outputs`) into a request on the
 * wire: query parameters join the URL, `json` becomes the body with its content type, empty
 * header values are left out. Its timeout is the template's (else `defaultTimeoutMs`), at most
 * `maxTimeoutMs`.
 */
export function renderRequest(
  template: RequestTemplateView,
  scope: TemplateScope,
  defaultTimeoutMs = DEFAULT_TIMEOUT_MS,
  maxTimeoutMs = Infinity,
): RenderedRequest {
  const { outputs: _outputs, ...requestPart } = template;
  const r = renderTemplate(requestPart, scope) as Record<string, unknown>;
  const url = stringField(r.url, 'url');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not quoted: the url may hold a secret (a key in its query), and this message reaches the caller.
    throw new TemplateError('type', 'the rendered url is not an absolute URL').at({ loc: ['url'] });
  }
  for (const [k, v] of Object.entries(asRecord(r.queryParams))) {
    if (v !== undefined && v !== null && v !== '') parsed.searchParams.append(k, String(v));
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(asRecord(r.headers))) {
    if (v !== undefined && v !== null && v !== '') headers[k.toLowerCase()] = String(v);
  }
  let body: string | undefined;
  if (r.json !== undefined) {
    body = JSON.stringify(r.json);
    headers['content-type'] ??= 'application/json';
  } else if (r.body !== undefined && r.body !== null) {
    body = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  }
  // The template's own timeout (it may render from an input) within the operator's ceiling.
  const own =
    typeof r.timeout === 'number' && Number.isFinite(r.timeout) && r.timeout > 0 ? r.timeout * 1000 : undefined;
  const timeout = Math.min(own ?? defaultTimeoutMs, maxTimeoutMs);
  return {
    request: {
      method: stringField(r.method ?? 'POST', 'method').toUpperCase(),
      url: parsed.toString(),
      headers,
      body,
      timeoutMs: timeout,
    },
    awsAuth: r.awsAuth ? (nonEmpty(asRecord(r.awsAuth)) as unknown as AwsAuth) : undefined,
    ociAuth: r.ociAuth ? (nonEmpty(asRecord(r.ociAuth)) as unknown as OciAuth) : undefined,
  };
}

function stringField(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '')
    throw new TemplateError('type', `the template's ${name} must render to a non-empty string`).at({ loc: [name] });
  return value;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Empty values are absent: an unset optional secret (e.g. an AWS session token) renders as "". */
function nonEmpty(r: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(r)
      .filter(([, v]) => v !== undefined && v !== null && v !== '')
      .map(([k, v]) => [k, String(v)]),
  );
}
