/** A provider template: one HTTP request, or a workflow of stages. */
export type ProviderTemplateView = RequestTemplateView | WorkflowTemplateView;

/** One HTTP request with `{{ expr }}` placeholders; `outputs` read its `response`. */
export interface RequestTemplateView {
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

/**
 * Stages run in order; each stage's `outputs` come into scope for the later stages and for the
 * workflow's own `outputs`, which must yield `content`. `timeout` (seconds) bounds the whole run.
 */
export interface WorkflowTemplateView {
  type: 'workflow';
  stages: WorkflowStageView[];
  outputs: Record<string, unknown>;
  timeout?: number;
}

export type WorkflowStageView = RequestTemplateView | RetryStageView;

/**
 * Runs `block` up to `attempts` times while `when` (rendered after each attempt, with the block's
 * outputs and `attempt` in scope) is true, waiting `backoff` seconds (an expression of `attempt`)
 * between attempts.
 */
export interface RetryStageView {
  type: 'retry';
  attempts: number;
  backoff?: string | number;
  when?: string;
  block: RequestTemplateView;
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
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    queryParams: Record<string, string>;
    body: string | null;
  };
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
