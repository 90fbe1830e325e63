import type { ProviderTemplateView } from '@bastion/contracts';
import { buildScope, renderTemplate } from '@bastion/templates';
import { renderRequest } from './render-request';
import { type IncomingResponse, type OutgoingRequest, type Signers, type Transport, TransportError, type FailureKind } from './transport';

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
}

/**
 * Runs a provider template end to end. Template errors (it does not render) are thrown as
 * TemplateError; transport failures and error answers come back in the result, as a tester and
 * the proxy both need them.
 */
export async function runProvider(call: ProviderCall, deps: { transport: Transport; signers: Signers; defaultTimeoutMs?: number }): Promise<ProviderCallResult> {
  const parts = { prompt: call.prompt, messages: call.messages ?? [{ role: 'user', content: call.prompt }], inputs: call.inputs, secrets: call.secrets };
  const { request, awsAuth, ociAuth } = renderRequest(call.template, buildScope(parts), deps.defaultTimeoutMs);
  if (awsAuth) Object.assign(request.headers, await deps.signers.aws(request, awsAuth));
  if (ociAuth) Object.assign(request.headers, deps.signers.oci(request, ociAuth));
  const sentAt = new Date();
  let response: IncomingResponse;
  try {
    response = await deps.transport.send(request);
  } catch (err) {
    const failure = err instanceof TransportError ? err.kind : 'other';
    const message = err instanceof Error ? err.message : String(err);
    return { request, response: null, outputs: {}, content: null, statusCode: null, error: message, failure, sentAt, receivedAt: null };
  }
  const receivedAt = new Date();
  const outputs = readOutputs(call.template, parts, response);
  const content = typeof outputs.content === 'string' ? outputs.content : outputs.content == null ? null : JSON.stringify(outputs.content);
  const statusCode = typeof outputs.statusCode === 'number' ? outputs.statusCode : response.statusCode;
  const declaredError = typeof outputs.error === 'string' && outputs.error !== '' ? outputs.error : null;
  const error = declaredError ?? (response.statusCode >= 400 ? `the provider answered HTTP ${response.statusCode}` : null);
  return { request, response, outputs, content, statusCode, error, failure: null, sentAt, receivedAt };
}

function readOutputs(template: ProviderTemplateView, parts: object, response: IncomingResponse): Record<string, unknown> {
  if (!template.outputs) return { content: response.body, statusCode: response.statusCode };
  try {
    // Without secrets in scope: outputs are shown and recorded, so they must not be able to echo one.
    const rendered = renderTemplate(template.outputs, buildScope({ ...parts, secrets: {}, response }));
    return rendered && typeof rendered === 'object' && !Array.isArray(rendered) ? (rendered as Record<string, unknown>) : {};
  } catch (err) {
    // A body that is not what the outputs expect (not JSON, an HTML error page) is an answer too.
    return { error: `could not read the provider's answer: ${err instanceof Error ? err.message : String(err)}` };
  }
}
