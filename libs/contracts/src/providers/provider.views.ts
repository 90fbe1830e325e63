export interface ProviderTemplateView {
  type: 'request';
  method: string;
  url: string;
  headers?: Record<string, string>;
  queryParams?: Record<string, string>;
  body?: string;
  json?: unknown;
  timeout?: number;
  awsAuth?: Record<string, string>;
  ociAuth?: Record<string, string>;
  outputs?: Record<string, unknown>;
}

/** The spec's Provider, every field. `secrets` values are masked. */
export interface ProviderView {
  id: string;
  name: string;
  projectId: string | null;
  systemProviderId: string | null;
  tag: string;
  type: string;
  authTemplate: Record<string, unknown> | null;
  availability: { global: boolean; projectIds: string[] };
  capabilities: string[];
  hasLogo: boolean;
  redTeam: boolean;
  siem: boolean;
  inputs: Record<string, string>;
  secrets: Record<string, string>;
  maxRequestsPerSecond: number | null;
  requestConcurrencyLimit: { requests: number; decayPerSecond: number } | null;
  template: ProviderTemplateView;
  createdAt: string;
  updatedAt: string;
}

/** A system provider also names the secrets a tenant provider made from it must supply. */
export interface SystemProviderView extends ProviderView {
  secretNames: string[];
  description: string;
}

export interface ProviderTestExchange {
  request: { method: string; url: string; headers: Record<string, string>; queryParams: Record<string, string>; body: string | null };
  response: { statusCode: number; headers: Record<string, string>; body: string } | null;
}

export interface ProviderTestResult {
  content: string | null;
  error: string | null;
  files: { contentType: string; data: string; isBase64: boolean; name: string }[];
  requests: Record<string, ProviderTestExchange>;
  statusCode: number | null;
}

/**
 * What the message proxy needs to call a provider: the template and the secrets in clear. Sent only
 * over NATS to the proxy, never to an HTTP client.
 */
export interface ProviderRuntime {
  id: string;
  tenant: string;
  name: string;
  type: string;
  projectId: string | null;
  availability: { global: boolean; projectIds: string[] };
  template: ProviderTemplateView;
  inputs: Record<string, string>;
  secrets: Record<string, string>;
  maxRequestsPerSecond: number | null;
  requestConcurrencyLimit: { requests: number; decayPerSecond: number } | null;
  revision: number;
}
