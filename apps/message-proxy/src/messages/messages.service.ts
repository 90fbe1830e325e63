import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, type MessagesCommand, type PromptOutcome, type ScannerResultRecord } from '@bastion/contracts';
import { NATS_CONNECTION } from '@bastion/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import { Observable, type Subscriber } from 'rxjs';
import { PROXY_CONFIG, type ProxyConfig } from '../config';
import {
  type AnthropicMessageLike,
  type AnthropicResponseLike,
  messageResponse,
  plainTurns,
  responseText,
  userTextSlots,
  withResponseText,
  withSlotTexts,
} from '../anthropic/anthropic-format';
import { errorEvent, formatSse, SseParser, synthesizeStream, textDelta } from '../anthropic/sse';
import type { GuardrailRun } from '../guard/run-guardrails';
import { worstOutcome } from '../guard/run-guardrails';
import { StreamGuard } from '../guard/stream-guard';
import { PromptRecorder } from '../records/prompt-recorder';
import { ANTHROPIC_TYPE, upstreamError, UpstreamService } from '../upstream/upstream.service';
import { type Exchange, ExchangeContext } from './exchange-context';
import type { StreamFrame } from './stream-frame';

/** Joins user texts for one scan; redaction keeps lengths, so the parts can be cut back out. */
const SEPARATOR = '\n\n';

type ProviderResult = { data: string; statusCode: number; sentDate: Date; receivedDate: Date };

interface Prepared {
  exchange: Exchange;
  body: Record<string, unknown> & { messages: AnthropicMessageLike[]; model?: string };
  request: GuardrailRun;
  started: ReturnType<PromptRecorder['start']>;
}

/**
 * `POST /vendor/{provider}/v1/messages`: scans the user's content, forwards the request (as sent,
 * or redacted) to the provider, scans the answer, and records the prompt. A block is a 400 in
 * Anthropic's error shape carrying `cai_error`.
 */
@Injectable()
export class MessagesService {
  constructor(
    private readonly context: ExchangeContext,
    private readonly upstream: UpstreamService,
    private readonly recorder: PromptRecorder,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PROXY_CONFIG) private readonly config: ProxyConfig,
  ) {}

  async create(cmd: MessagesCommand): Promise<{ status: number; body: unknown; promptId: string }> {
    const p = await this.prepare(cmd);
    const provider = p.exchange.provider!;
    let answer: AnthropicResponseLike;
    let providerResult: ProviderResult;
    if (provider.type === ANTHROPIC_TYPE) {
      const res = await this.upstreamCall(p, () => this.upstream.anthropic(provider, { ...p.body, stream: false }, cmd.headers));
      providerResult = { data: res.body, statusCode: res.status, sentDate: res.sentAt, receivedDate: res.receivedAt };
      if (res.status >= 400) {
        await this.finish(p, p.request.outcome, null, providerResult, p.request.results);
        return { status: res.status, body: parseJson(res.body), promptId: p.started.id };
      }
      answer = parseJson(res.body) as AnthropicResponseLike;
    } else {
      const called = await this.viaTemplate(p);
      providerResult = called.providerResult;
      answer = messageResponse(String(p.body.model ?? provider.inputs.model ?? provider.name), called.text);
    }
    const response = p.exchange.scan(responseText(answer), 'response');
    const results = [...p.request.results, ...response.results];
    if (response.outcome === 'blocked') {
      await this.finish(p, 'blocked', null, providerResult, results);
      throw blocked('response', results, response.messages);
    }
    const delivered = response.outcome === 'redacted' ? withResponseText(answer, response.text) : answer;
    await this.finish(p, worstOutcome(p.request.outcome, response.outcome), responseText(delivered), providerResult, results);
    return { status: 200, body: delivered, promptId: p.started.id };
  }

  /** The same exchange with `stream: true`: frames of Anthropic's SSE, scanned as they pass. */
  stream(cmd: MessagesCommand): Observable<StreamFrame> {
    return new Observable<StreamFrame>((sub) => {
      const abort = new AbortController();
      const cancel = cmd.cancelSubject ? this.nc.subscribe(cmd.cancelSubject, { max: 1, callback: () => abort.abort() }) : undefined;
      this.runStream(cmd, sub, abort.signal).then(
        () => sub.complete(),
        (err: unknown) => sub.error(err),
      );
      return () => {
        cancel?.unsubscribe();
        abort.abort();
      };
    });
  }

  private async runStream(cmd: MessagesCommand, sub: Subscriber<StreamFrame>, signal: AbortSignal): Promise<void> {
    const p = await this.prepare(cmd);
    const provider = p.exchange.provider!;
    const emit = (data: string) => !sub.closed && sub.next({ kind: 'data', data });
    if (provider.type !== ANTHROPIC_TYPE) {
      const { text, providerResult } = await this.viaTemplate(p);
      const response = p.exchange.scan(text, 'response');
      const results = [...p.request.results, ...response.results];
      if (response.outcome === 'blocked') {
        await this.finish(p, 'blocked', null, providerResult, results);
        throw blocked('response', results, response.messages);
      }
      sub.next({ kind: 'head', status: 200, contentType: 'text/event-stream', promptId: p.started.id });
      const message = messageResponse(String(p.body.model ?? provider.name), '');
      for (const e of synthesizeStream(message, response.text)) emit(formatSse(e));
      await this.finish(p, worstOutcome(p.request.outcome, response.outcome), response.text, providerResult, results);
      return;
    }

    const upstream = await this.upstreamCall(p, () => this.upstream.anthropicStream(provider, { ...p.body, stream: true }, cmd.headers, signal));
    if (upstream.status !== 200) {
      const text = await readAll(upstream.body);
      const providerResult = { data: text, statusCode: upstream.status, sentDate: upstream.sentAt, receivedDate: new Date() };
      await this.finish(p, p.request.outcome, null, providerResult, p.request.results);
      sub.next({ kind: 'head', status: upstream.status, contentType: upstream.headers['content-type'] ?? 'application/json', promptId: p.started.id });
      emit(text);
      return;
    }
    sub.next({ kind: 'head', status: 200, contentType: 'text/event-stream', promptId: p.started.id });
    const parser = new SseParser();
    const guards = new Map<number, StreamGuard>();
    const delivered: string[] = [];
    const raw: string[] = [];
    let outcome: PromptOutcome = 'cleared';
    let results: ScannerResultRecord[] = [];
    let stop = false;
    const onRun = (run: GuardrailRun | undefined) => {
      if (!run) return;
      outcome = worstOutcome(outcome, run.outcome);
      results = run.results;
    };
    try {
      for await (const chunk of upstream.body) {
        raw.push(String(chunk));
        for (const e of parser.push(String(chunk))) {
          const data = safeJson(e.data);
          const index = typeof data?.index === 'number' ? data.index : 0;
          if (e.event === 'content_block_start' && data?.content_block?.type === 'text') {
            guards.set(index, new StreamGuard((t) => p.exchange.scan(t, 'response'), this.config.STREAM_HOLDBACK_CHARS));
          }
          const guard = guards.get(index);
          if (guard && e.event === 'content_block_delta' && data?.delta?.type === 'text_delta') {
            const step = guard.push(String(data.delta.text ?? ''));
            if ('blocked' in step) {
              onRun(step.blocked);
              emit(formatSse(errorEvent('invalid_request_error', blockMessage('response', step.blocked.messages), { cai_error: caiError([...p.request.results, ...step.blocked.results]) })));
              stop = true;
              break;
            }
            if (step.release) {
              delivered.push(step.release);
              emit(formatSse(textDelta(index, step.release)));
            }
            continue;
          }
          if (guard && e.event === 'content_block_stop') {
            const step = guard.finish();
            onRun(guard.lastRun);
            if ('blocked' in step) {
              emit(formatSse(errorEvent('invalid_request_error', blockMessage('response', step.blocked.messages), { cai_error: caiError([...p.request.results, ...step.blocked.results]) })));
              stop = true;
              break;
            }
            if (step.release) {
              delivered.push(step.release);
              emit(formatSse(textDelta(index, step.release)));
            }
            guards.delete(index);
          }
          emit(formatSse(e));
        }
        if (stop) break;
      }
    } catch (err) {
      if (!signal.aborted) throw upstreamError(err);
    } finally {
      if (stop || signal.aborted) upstream.body.destroy();
      const providerResult = { data: raw.join(''), statusCode: 200, sentDate: upstream.sentAt, receivedDate: new Date() };
      const final = stop ? 'blocked' : worstOutcome(p.request.outcome, outcome);
      await this.finish(p, final, stop ? null : delivered.join(''), providerResult, [...p.request.results, ...results]);
    }
  }

  /** Runs an upstream call; a transport failure (504 slow, 502 unreachable) is recorded before it propagates. */
  private async upstreamCall<T>(p: Prepared, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      await this.finish(p, p.request.outcome, null, null, p.request.results);
      throw upstreamError(err);
    }
  }

  /** A provider reached through its template; an error answer is recorded and becomes a 502. */
  private async viaTemplate(p: Prepared): Promise<{ text: string; providerResult: ProviderResult }> {
    const turns = plainTurns(p.body.messages);
    const prompt = turns.filter((t) => t.role === 'user').at(-1)?.content ?? '';
    const result = await this.upstreamCall(p, () => this.upstream.viaTemplate(p.exchange.provider!, prompt, turns));
    const providerResult = { data: result.response?.body ?? '', statusCode: result.statusCode ?? 0, sentDate: result.sentAt, receivedDate: result.receivedAt ?? new Date() };
    if (result.error !== null || result.content === null) {
      await this.finish(p, p.request.outcome, null, providerResult, p.request.results);
      throw new DomainError(ErrorCode.BAD_GATEWAY, `the provider failed: ${result.error ?? 'no content in its answer'}`);
    }
    return { text: result.content, providerResult };
  }

  /** Scans the request; a block answers at once (recorded), a redaction rewrites the user texts. */
  private async prepare(cmd: MessagesCommand): Promise<Prepared> {
    const exchange = await this.context.open(cmd.principal, cmd.provider);
    const body = cmd.body as Prepared['body'];
    const slots = userTextSlots(body.messages);
    const joined = slots.map((s) => s.text).join(SEPARATOR);
    const request = exchange.scan(joined, 'request');
    const turns = plainTurns(body.messages).map((t) => t.content);
    const started = this.recorder.start({
      principal: cmd.principal,
      projectId: exchange.project.project.id,
      provider: exchange.provider!.name,
      providerId: exchange.provider!.id,
      input: slots.at(-1)?.text ?? '',
      memory: turns.slice(0, -1),
      type: 'prompt',
      source: 'vendor',
    });
    const prepared: Prepared = { exchange, body, request, started };
    if (request.outcome === 'blocked') {
      await this.finish(prepared, 'blocked', null, null, request.results);
      throw blocked('request', request.results, request.messages);
    }
    if (request.outcome === 'redacted') {
      prepared.body = { ...body, messages: withSlotTexts(body.messages, slots, splitBack(request.text, slots.map((s) => s.text.length))) };
    }
    return prepared;
  }

  private async finish(
    p: Prepared,
    outcome: PromptOutcome,
    response: string | null,
    providerResult: ProviderResult | null,
    results: ScannerResultRecord[],
  ): Promise<void> {
    await this.recorder.record(p.started, { outcome, response, providerResult: outcome === 'blocked' ? null : providerResult, scannerResults: results });
  }
}

export function caiError(results: ScannerResultRecord[]): { outcome: 'blocked'; scanner_results: ScannerResultRecord[] } {
  return { outcome: 'blocked', scanner_results: results };
}

function blockMessage(direction: 'request' | 'response', messages: string[]): string {
  const why = messages.length ? `: ${messages.join('; ')}` : '';
  return `the ${direction} was blocked by a guardrail${why}`;
}

export function blocked(direction: 'request' | 'response', results: ScannerResultRecord[], messages: string[]): DomainError {
  return new DomainError(ErrorCode.INVALID_ARGUMENT, blockMessage(direction, messages), [], undefined, { cai_error: caiError(results) });
}

function splitBack(joined: string, lengths: number[]): string[] {
  const parts: string[] = [];
  let at = 0;
  for (const n of lengths) {
    parts.push(joined.slice(at, at + n));
    at += n + SEPARATOR.length;
  }
  return parts;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { type: 'error', error: { type: 'api_error', message: text.slice(0, 1000) } };
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- upstream event data of any shape, read defensively
function safeJson(text: string): Record<string, any> | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function readAll(stream: AsyncIterable<unknown>): Promise<string> {
  const parts: string[] = [];
  for await (const c of stream) parts.push(String(c));
  return parts.join('');
}
