import type { ProviderTemplateView, RequestTemplateView, WorkflowTemplateView } from '@bastion/contracts';
import { buildScope, renderTemplate } from '@bastion/templates';
import { DestinationBinding } from './destination-binding';
import { redactSecrets, secretSpellings } from './redact';
import { renderRequest } from './render-request';
import { runWorkflow, type WorkflowExchange } from './run-workflow';
import {
  type IncomingResponse,
  type OutgoingRequest,
  type Signers,
  type Transport,
  TransportError,
  type FailureKind,
} from './transport';

export interface ProviderCall {
  template: ProviderTemplateView;
  inputs: Record<string, string>;
  secrets: Record<string, string>;
  prompt: string;
  messages?: unknown;
}

export interface ProviderCallResult {
  /** As sent (signed), secrets in clear: redact before showing or logging. */
  request: OutgoingRequest;
  response: IncomingResponse | null;
  outputs: Record<string, unknown>;
  content: string | null;
  statusCode: number | null;
  error: string | null;
  /** Set when no response came back. */
  failure: FailureKind | null;
  sentAt: Date;
  receivedAt: Date | null;
  /** A workflow's every request and answer, in order (a request template has none). */
  exchanges?: WorkflowExchange[];
}

export interface ProviderRunDeps {
  transport: Transport;
  signers: Signers;
  /** A request's timeout when it sets none; also a workflow's whole time when it sets none. */
  defaultTimeoutMs?: number;
  /**
   * The longest a call may take, whatever its template says (the operator's ceiling): a request's
   * timeout and a workflow's whole time are cut to it. A template's `timeout` may only shorten it.
   */
  maxTimeoutMs?: number;
  /** How a workflow waits between retry attempts (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
  /** A workflow's clock, in ms (tests pass a fake). */
  now?: () => number;
  /** Characters a workflow's answers may add up to (WORKFLOW_ANSWER_CHARS when unset). */
  maxWorkflowAnswerChars?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Runs a provider template end to end. Template errors (it does not render) are thrown as
 * TemplateError; transport failures and error answers come back in the result, as a tester and
 * the proxy both need them.
 */
export async function runProvider(call: ProviderCall, deps: ProviderRunDeps): Promise<ProviderCallResult> {
  const result = await run(call, deps);
  // A transport's message names the url, which may hold a secret (in its query, or its host).
  if (result.error === null) return result;
  return { ...result, error: redactSecrets(result.error, secretSpellings(call.secrets)) };
}

async function run(call: ProviderCall, deps: ProviderRunDeps): Promise<ProviderCallResult> {
  const parts = {
    prompt: call.prompt,
    messages: call.messages ?? [{ role: 'user', content: call.prompt }],
    inputs: call.inputs,
    secrets: call.secrets,
  };
  if (call.template.type === 'workflow') return runWorkflowCall(call.template, parts, deps);
  const { request, awsAuth, ociAuth } = renderRequest(
    call.template,
    buildScope(parts),
    deps.defaultTimeoutMs,
    deps.maxTimeoutMs,
  );
  if (awsAuth) Object.assign(request.headers, await deps.signers.aws(request, awsAuth));
  if (ociAuth) Object.assign(request.headers, deps.signers.oci(request, ociAuth));
  const sentAt = new Date();
  // No answer: refused before sending, or the transport failed.
  const unanswered = (error: string, failure: FailureKind): ProviderCallResult => ({
    request,
    response: null,
    outputs: {},
    content: null,
    statusCode: null,
    error,
    failure,
    sentAt,
    receivedAt: null,
  });
  const refused = new DestinationBinding(call.template, call.secrets).refusal(0, request, parts, {});
  if (refused) return unanswered(refused, 'blocked_address');
  let response: IncomingResponse;
  try {
    response = await deps.transport.send(request);
  } catch (err) {
    return unanswered(
      err instanceof Error ? err.message : String(err),
      err instanceof TransportError ? err.kind : 'other',
    );
  }
  const receivedAt = new Date();
  const outputs = readOutputs(call.template, parts, response);
  const content =
    typeof outputs.content === 'string'
      ? outputs.content
      : outputs.content == null
        ? null
        : JSON.stringify(outputs.content);
  const statusCode = typeof outputs.statusCode === 'number' ? outputs.statusCode : response.statusCode;
  const declaredError = typeof outputs.error === 'string' && outputs.error !== '' ? outputs.error : null;
  const error =
    declaredError ?? (response.statusCode >= 400 ? `the provider answered HTTP ${response.statusCode}` : null);
  return { request, response, outputs, content, statusCode, error, failure: null, sentAt, receivedAt };
}

async function runWorkflowCall(
  template: WorkflowTemplateView,
  parts: Parameters<typeof runWorkflow>[1],
  deps: ProviderRunDeps,
): Promise<ProviderCallResult> {
  const timeout = deps.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const run = await runWorkflow(template, parts, {
    transport: deps.transport,
    signers: deps.signers,
    budgetMs: timeout,
    defaultTimeoutMs: timeout,
    maxTimeoutMs: deps.maxTimeoutMs,
    sleep: deps.sleep,
    now: deps.now,
    maxAnswerChars: deps.maxWorkflowAnswerChars,
  });
  const last = run.exchanges.at(-1);
  const response = [...run.exchanges].reverse().find((e) => e.response)?.response ?? null;
  const request = last?.request ?? { method: '', url: '', headers: {}, timeoutMs: 0 };
  const base = { request, response, sentAt: run.sentAt, receivedAt: run.receivedAt, exchanges: run.exchanges };
  if (run.error !== null) {
    return {
      ...base,
      outputs: {},
      content: null,
      statusCode: run.failure ? null : (response?.statusCode ?? null),
      error: run.error,
      failure: run.failure,
    };
  }
  const outputs = run.outputs;
  const content =
    typeof outputs.content === 'string'
      ? outputs.content
      : outputs.content == null
        ? null
        : JSON.stringify(outputs.content);
  const statusCode = typeof outputs.statusCode === 'number' ? outputs.statusCode : (response?.statusCode ?? null);
  const declaredError = typeof outputs.error === 'string' && outputs.error !== '' ? outputs.error : null;
  const error =
    declaredError ?? (statusCode !== null && statusCode >= 400 ? `the provider answered HTTP ${statusCode}` : null);
  return { ...base, outputs, content, statusCode, error, failure: null };
}

function readOutputs(
  template: RequestTemplateView,
  parts: object,
  response: IncomingResponse,
): Record<string, unknown> {
  if (!template.outputs) return { content: response.body, statusCode: response.statusCode };
  try {
    // Without secrets in scope: outputs are shown and recorded, so they must not be able to echo one.
    const rendered = renderTemplate(template.outputs, buildScope({ ...parts, secrets: {}, response }));
    return rendered && typeof rendered === 'object' && !Array.isArray(rendered)
      ? (rendered as Record<string, unknown>)
      : {};
  } catch (err) {
    // A body that is not what the outputs expect (not JSON, an HTML error page) is an answer too.
    return { error: `could not read the provider's answer: ${err instanceof Error ? err.message : String(err)}` };
  }
}
