import type { RequestTemplateView, RetryStageView, WorkflowTemplateView } from '@bastion/contracts';
import {
  buildScope,
  renderTemplate,
  TemplateError,
  type TemplatePathSegment,
  WORKFLOW_LIMITS,
} from '@bastion/templates';
import { DestinationBinding } from './destination-binding';
import { renderRequest } from './render-request';
import {
  type FailureKind,
  type IncomingResponse,
  type OutgoingRequest,
  type Signers,
  type Transport,
  TransportError,
} from './transport';

/** One request a workflow sent, and what came back (null when nothing did). */
export interface WorkflowExchange {
  /** 1-based, as messages name stages. */
  stage: number;
  /** 1-based attempt inside a retry stage; absent for a request stage. */
  attempt?: number;
  request: OutgoingRequest;
  response: IncomingResponse | null;
}

export interface WorkflowDeps {
  transport: Transport;
  signers: Signers;
  /** The whole workflow's time, unless the template sets its own `timeout`. */
  budgetMs: number;
  /** Per-request timeout when a request sets none. */
  defaultTimeoutMs: number;
  /** The whole workflow's time at most, whatever the template's `timeout` says. */
  maxTimeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Characters of answers one run may take in all (WORKFLOW_ANSWER_CHARS when unset). */
  maxAnswerChars?: number;
}

/**
 * What one run's answers may add up to: a workflow of ten stages of ten attempts could otherwise
 * hold a hundred answers of the transport's 10 MiB each until it ends (the tester shows them all).
 */
export const WORKFLOW_ANSWER_CHARS = 16 * 1024 * 1024;

export interface WorkflowParts {
  prompt: string;
  messages: unknown;
  inputs: Record<string, string>;
  secrets: Record<string, string>;
}

/** How a workflow run ended: its outputs, or why it stopped. */
export interface WorkflowRun {
  exchanges: WorkflowExchange[];
  /** The workflow's rendered `outputs`; empty when it stopped early. */
  outputs: Record<string, unknown>;
  /** Why it stopped early, naming the stage; null when it ran to the end. */
  error: string | null;
  failure: FailureKind | null;
  sentAt: Date;
  receivedAt: Date | null;
}

/** One send of a stage: no answer (`failure`), or the answer and its outputs (or why they are unreadable). */
type SendResult =
  | { kind: 'failed'; failure: FailureKind; message: string }
  | { kind: 'answered'; response: IncomingResponse; outputs: Record<string, unknown>; unreadable?: string };

const sleeper = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs a workflow template: its stages in order, each stage's outputs in scope for the later ones,
 * then the workflow's `outputs`. A retry stage re-sends its block while `when` holds and attempts
 * remain, waiting `backoff` seconds between attempts. Everything runs inside one time budget: each
 * request's timeout is cut to what remains, and a backoff that would overrun it ends the retries.
 * Template errors are thrown (as TemplateError, naming the stage); transport failures and error
 * answers of a stage before the last end the run with `error` set. A stage whose origin an
 * upstream's answer chose sends a secret only where a stage of the template's own addressing sent
 * it earlier in the run (DestinationBinding); otherwise the run ends there, with `blocked_address`.
 */
export async function runWorkflow(
  workflow: WorkflowTemplateView,
  parts: WorkflowParts,
  deps: WorkflowDeps,
): Promise<WorkflowRun> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? sleeper;
  const budgetMs = Math.min(workflow.timeout ? workflow.timeout * 1000 : deps.budgetMs, deps.maxTimeoutMs ?? Infinity);
  const deadline = now() + budgetMs;
  const exchanges: WorkflowExchange[] = [];
  const sentAt = new Date();
  let values: Record<string, unknown> = {};
  const maxAnswerChars = deps.maxAnswerChars ?? WORKFLOW_ANSWER_CHARS;
  // Only requests render with secrets: every output, condition and backoff renders without them,
  // since what they render is shown, recorded or fed to later stages and may not echo a secret.
  const shown: WorkflowParts = { ...parts, secrets: {} };
  const destinations = new DestinationBinding(workflow, parts.secrets);
  let answerChars = 0;
  const stop = (error: string, failure: FailureKind | null = null): WorkflowRun => ({
    exchanges,
    outputs: {},
    error,
    failure,
    sentAt,
    receivedAt: exchanges.some((e) => e.response) ? new Date() : null,
  });

  /** Sends one request of a stage; a transport failure comes back as `failure`. */
  const send = async (
    template: RequestTemplateView,
    stage: number,
    label: string,
    attempt?: number,
  ): Promise<SendResult> => {
    const remaining = deadline - now();
    if (remaining <= 0)
      return { kind: 'failed', failure: 'timeout', message: `${label}: the workflow used up its ${budgetMs} ms` };
    const scopeValues = attempt === undefined ? values : { ...values, attempt };
    const place: TemplatePathSegment[] = attempt === undefined ? ['stages', stage - 1] : ['stages', stage - 1, 'block'];
    const { request, awsAuth, ociAuth } = atStage(label, place, () =>
      renderRequest(template, buildScope({ ...parts, values: scopeValues }), deps.defaultTimeoutMs),
    );
    request.timeoutMs = Math.max(1, Math.min(request.timeoutMs, remaining));
    if (awsAuth) Object.assign(request.headers, await deps.signers.aws(request, awsAuth));
    if (ociAuth) Object.assign(request.headers, deps.signers.oci(request, ociAuth));
    const refused = destinations.refusal(stage - 1, request, parts, scopeValues);
    if (refused) return { kind: 'failed', failure: 'blocked_address', message: `${label}: ${refused}` };
    const exchange: WorkflowExchange = {
      stage,
      ...(attempt === undefined ? {} : { attempt }),
      request,
      response: null,
    };
    exchanges.push(exchange);
    try {
      exchange.response = await deps.transport.send(request);
    } catch (err) {
      const failure: FailureKind = err instanceof TransportError ? err.kind : 'other';
      return { kind: 'failed', failure, message: `${label}: ${err instanceof Error ? err.message : String(err)}` };
    }
    answerChars += exchange.response.body.length;
    if (answerChars > maxAnswerChars) {
      exchange.response = { ...exchange.response, body: '' };
      const message = `${label}: the workflow's answers passed ${maxAnswerChars} characters in all`;
      return { kind: 'failed', failure: 'too_large', message };
    }
    const read = readStageOutputs(template, label, shown, scopeValues, exchange.response);
    return { kind: 'answered', response: exchange.response, ...read };
  };

  const stages = workflow.stages;
  for (let i = 0; i < stages.length; i++) {
    const stage = stages[i];
    const label = `stage ${i + 1} (${stage.type})`;
    const last = i === stages.length - 1;
    const r = stage.type === 'request' ? await send(stage, i + 1, label) : await retry(stage, i + 1, label);
    if (r.kind === 'failed') return stop(r.message, r.failure);
    if (r.unreadable !== undefined) return stop(r.unreadable);
    const response = r.response;
    values = { ...values, ...r.outputs };
    if (!last && response.statusCode >= 400) return stop(`${label} answered HTTP ${response.statusCode}`);
  }

  const lastResponse = [...exchanges].reverse().find((e) => e.response)?.response ?? undefined;
  const outputs = atStage('the workflow', ['outputs'], () =>
    renderTemplate(workflow.outputs, buildScope({ ...shown, values, response: lastResponse })),
  );
  return {
    exchanges,
    outputs:
      outputs && typeof outputs === 'object' && !Array.isArray(outputs) ? (outputs as Record<string, unknown>) : {},
    error: null,
    failure: null,
    sentAt,
    receivedAt: new Date(),
  };

  async function retry(stage: RetryStageView, index: number, label: string): Promise<SendResult> {
    const attempts = Math.min(Math.max(1, Math.floor(stage.attempts)), WORKFLOW_LIMITS.maxAttempts);
    let result: SendResult | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const sent = await send(stage.block, index, `${label}, attempt ${attempt}`, attempt);
      result = sent;
      // Past the run's answer budget nothing more is sent, nor again to a destination refused.
      if (sent.kind === 'failed' && (sent.failure === 'too_large' || sent.failure === 'blocked_address')) break;
      // A failed send, or an answer the outputs cannot read, is always worth another attempt;
      // an answer otherwise only while `when` holds.
      const scopeValues = sent.kind === 'failed' ? { ...values, attempt } : { ...values, ...sent.outputs, attempt };
      const when = stage.when;
      const again =
        sent.kind === 'failed' || sent.unreadable !== undefined
          ? true
          : when !== undefined &&
            holds(
              atStage(label, ['stages', index - 1, 'when'], () =>
                renderTemplate(when, buildScope({ ...shown, values: scopeValues, response: sent.response })),
              ),
            );
      if (!again || attempt === attempts) break;
      const waitMs = backoffMs(stage, index, label, shown, scopeValues);
      if (now() + waitMs >= deadline) break;
      if (waitMs > 0) await sleep(waitMs);
    }
    return result!;
  }
}

function backoffMs(
  stage: RetryStageView,
  index: number,
  label: string,
  /** The run's parts without secrets. */
  shown: WorkflowParts,
  values: Record<string, unknown>,
): number {
  if (stage.backoff === undefined) return 0;
  const backoff = stage.backoff;
  const place = ['stages', index - 1, 'backoff'];
  const raw =
    typeof backoff === 'number'
      ? backoff
      : atStage(label, place, () => renderTemplate(backoff, buildScope({ ...shown, values })));
  const seconds = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new TemplateError('type', `${label}: backoff must come out as a number of seconds, 0 or more`, {
      loc: place,
    });
  return Math.min(seconds, WORKFLOW_LIMITS.maxBackoffSeconds) * 1000;
}

/** A stage's outputs, or (as `unreadable`, naming the stage) why its answer could not be read. */
function readStageOutputs(
  template: RequestTemplateView,
  label: string,
  /** The run's parts without secrets. */
  shown: WorkflowParts,
  values: Record<string, unknown>,
  response: IncomingResponse,
): { outputs: Record<string, unknown>; unreadable?: string } {
  if (!template.outputs) return { outputs: {} };
  try {
    const rendered = renderTemplate(template.outputs, buildScope({ ...shown, values, response }));
    return {
      outputs:
        rendered && typeof rendered === 'object' && !Array.isArray(rendered)
          ? (rendered as Record<string, unknown>)
          : {},
    };
  } catch (err) {
    return {
      outputs: {},
      unreadable: `${label}: could not read the answer (HTTP ${response.statusCode}): ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

function holds(value: unknown): boolean {
  return (
    value === true ||
    (typeof value === 'string' && value !== '' && value !== 'false') ||
    (typeof value === 'number' && value !== 0)
  );
}

/** Runs `fn`; a template error it throws names the stage, and its place is from the template's root. */
function atStage<T>(label: string, place: readonly TemplatePathSegment[], fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TemplateError) {
      throw new TemplateError(err.code, `${label}: ${err.reason}`, {
        placeholder: err.placeholder,
        position: err.position,
        expressionOffset: err.expressionOffset,
        loc: [...place, ...err.loc],
      });
    }
    throw err;
  }
}
