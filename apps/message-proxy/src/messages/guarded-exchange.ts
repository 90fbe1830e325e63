import { StringDecoder } from 'node:string_decoder';
import { Inject, Injectable } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { Observable } from 'rxjs';
import {
  DomainError,
  ErrorCode,
  type ExchangeTiming,
  type GuardSettings,
  type Principal,
  type PromptRecordedEvent,
  type ScannerResultRecord,
  recordedScannerResultView,
} from '@bastion/contracts';
import { maskSpans } from '@bastion/guardrails';
import { PROXY_CONFIG, type ProxyConfig } from '../config';
import {
  isObject,
  leafPieces,
  textBlocksApart,
  type TextsAsRead,
  textsInJoin,
  turnsAsTemplated,
  type TextLeaf,
  type Unreadable,
  unreadableName,
  walkRequest,
  walkResponse,
  writeLeaves,
} from '../anthropic/content';
import { ERROR_TYPES, messageResponse, plainTurns, responseText } from '../anthropic/anthropic-format';
import { formatSse, SseParser, synthesizeStream } from '../anthropic/sse';
import { ContentDelta, readStreamEvents } from '../anthropic/stream-event';
import { AnswerStreamGuard, type StreamEvent } from '../guard/answer-stream-guard';
import { type DirectionGuard, type GuardSummary, type WindowVerdict, worstOutcome } from '../guard/direction-guard';
import { PromptRecorder } from '../records/prompt-recorder';
import { ANTHROPIC_TYPE, upstreamError, UpstreamService } from '../upstream/upstream.service';
import { type Exchange, ExchangeContext } from './exchange-context';
import { Recording } from './recording';
import type { StreamFrame } from './stream-frame';

/** One model call as a client asks for it, in the Messages API's terms (other dialects translate to this). */
export interface ExchangeRequest {
  principal: Principal;
  provider: string;
  project?: string;
  /** A Messages API body, the exchange's own: a redaction rewrites it in place. */
  body: Record<string, unknown>;
  headers: Record<string, string>;
  source: PromptRecordedEvent['source'];
  externalMetadata?: Record<string, unknown>;
  templateId?: string | null;
  /** How a stream's guarded events and an upstream's error body are written for the client (default: Anthropic's). */
  dialect?: StreamDialect;
}

export interface StreamDialect {
  event(e: StreamEvent): string;
  errorBody(body: Record<string, unknown>): unknown;
}

const ANTHROPIC_DIALECT: StreamDialect = {
  event: (e) => formatSse({ event: e.type, data: JSON.stringify(e) }),
  errorBody: (body) => body,
};

/** How an exchange ended, for the caller to put in its own API's shape. */
export type ExchangeResult = (
  | {
      kind: 'answer';
      status: number;
      body: unknown;
      /** `body` as the JSON text the client receives (empty for a stream, whose events went as frames). */
      json: string;
      record: PromptRecordedEvent;
    }
  | {
      kind: 'blocked';
      direction: 'request' | 'response';
      results: ScannerResultRecord[];
      messages: string[];
      record: PromptRecordedEvent;
    }
) & { timing?: ExchangeTiming };

interface Prepared {
  exchange: Exchange;
  body: Record<string, unknown>;
  recording: Recording;
  request: GuardSummary;
  settings: GuardSettings;
  /** Time waiting on the provider (ms), for Server-Timing. */
  upstreamMs?: number;
}

/**
 * The guarded exchange, the one path every model call takes (`/vendor`, `/prompts`, the OpenAI
 * route): read the request, scan everything the model will read, call the provider, scan
 * everything it answers, and record once what was sent and what was delivered. JSON and streamed
 * answers differ only in how the answer is scanned.
 */
@Injectable()
export class GuardedExchange {
  constructor(
    private readonly context: ExchangeContext,
    private readonly upstream: UpstreamService,
    private readonly recorder: PromptRecorder,
    @Inject(PROXY_CONFIG) private readonly config: ProxyConfig,
  ) {}

  /** A whole answer, scanned before any of it is returned. */
  async call(req: ExchangeRequest): Promise<ExchangeResult> {
    const p = await this.prepare(req);
    if (p.request.outcome === 'blocked') return this.blocked(p, 'request', p.request);
    try {
      const answer = await this.answer(p, req.headers);
      if (answer.kind === 'blocked') return this.blocked(p, 'response', answer.summary);
      const record = await p.recording.close();
      return {
        kind: 'answer',
        status: answer.status,
        body: answer.body,
        json: answer.json,
        record,
        timing: { guard: p.exchange.budget.spent, upstream: p.upstreamMs, record: p.recording.recordMs },
      };
    } finally {
      await p.recording.close();
    }
  }

  /**
   * A streamed answer: frames go to `emit` as the guard releases them, the head first. Until the
   * head, the result may still be a block (the caller answers it as an ordinary error); after it, a
   * block ends the stream with an `error` event. Ends once the stream has, whichever way.
   */
  async stream(req: ExchangeRequest, emit: (frame: StreamFrame) => void, signal: AbortSignal): Promise<ExchangeResult> {
    const p = await this.prepare(req);
    if (p.request.outcome === 'blocked') return this.blocked(p, 'request', p.request);
    try {
      if (p.exchange.provider!.type !== ANTHROPIC_TYPE) return await this.streamWhole(p, req, emit);
      return await this.streamAnthropic(p, req, emit, signal);
    } finally {
      await p.recording.close();
    }
  }

  /** Calls the provider for a whole answer and scans all of it; a redaction rewrites the answer in place. */
  private async answer(
    p: Prepared,
    headers: Record<string, string>,
  ): Promise<
    | { kind: 'answer'; status: number; body: Record<string, unknown>; json: string }
    | { kind: 'blocked'; summary: GuardSummary }
  > {
    const provider = p.exchange.provider!;
    let answer: Record<string, unknown>;
    let sentDate: Date;
    let receivedDate: Date;
    const calledAt = performance.now();
    if (provider.type === ANTHROPIC_TYPE) {
      const res = await this.upstream.anthropic(provider, { ...p.body, stream: false }, headers);
      p.upstreamMs = performance.now() - calledAt;
      ({ sentAt: sentDate, receivedAt: receivedDate } = res);
      const parsed = parseObject(res.body);
      if (res.status >= 400) {
        const { body, json } = await this.providerError(p, parsed, res.status, sentDate, receivedDate);
        return { kind: 'answer', status: res.status, body, json };
      }
      if (!parsed)
        throw new DomainError(ErrorCode.BAD_GATEWAY, 'the provider answered with something other than a JSON message');
      answer = parsed;
    } else {
      const called = await this.viaTemplate(p);
      p.upstreamMs = performance.now() - calledAt;
      ({ sentDate, receivedDate } = called);
      answer = messageResponse(String(p.body.model ?? provider.inputs.model ?? provider.name), called.text) as Record<
        string,
        unknown
      >;
    }
    const guard = p.exchange.guard('response');
    if (!Array.isArray(answer.content))
      throw new DomainError(ErrorCode.BAD_GATEWAY, 'the provider answered with a message whose content is not a list');
    const walk = walkResponse(answer);
    const refused = walk.unreadable.some((u) => refuses(u, p.settings));
    const { joined, verdict } = await checkLeavesAsRead(guard, walk.leaves, textBlocksApart(walk.leaves));
    const summary = this.summarize(guard, walk.unreadable, refused);
    if (verdict.blocked || refused) return { kind: 'blocked', summary };
    if (verdict.redactions.length) writeLeaves(walk.leaves, maskSpans(joined, verdict.redactions));
    const json = JSON.stringify(answer);
    this.finish(p, summary, responseText(answer), { data: json, statusCode: 200, sentDate, receivedDate });
    return { kind: 'answer', status: 200, body: answer, json };
  }

  /** A provider that does not stream: the whole answer is scanned, then sent as a stream. */
  private async streamWhole(
    p: Prepared,
    req: ExchangeRequest,
    emit: (frame: StreamFrame) => void,
  ): Promise<ExchangeResult> {
    const answer = await this.answer(p, req.headers);
    if (answer.kind === 'blocked') return this.blocked(p, 'response', answer.summary);
    emit({
      kind: 'head',
      status: answer.status,
      contentType: answer.status === 200 ? 'text/event-stream' : 'application/json',
      promptId: p.recording.id,
    });
    const dialect = req.dialect ?? ANTHROPIC_DIALECT;
    if (answer.status !== 200) {
      emit({ kind: 'data', data: JSON.stringify(dialect.errorBody(answer.body)) });
    } else {
      const events = synthesizeStream(answer.body as { id?: string; model?: string }, responseText(answer.body));
      const sse = events.map((e) => dialect.event(JSON.parse(e.data) as StreamEvent));
      // The whole answer is scanned and ready: it leaves in as few frames as FrameBatch allows.
      const frame = new FrameBatch(emit);
      for (const data of sse) if (data) frame.add(data);
      frame.flush();
      if (p.recording.providerResult) p.recording.providerResult.data = sse.join('');
    }
    return { kind: 'answer', status: answer.status, body: null, json: '', record: await p.recording.close() };
  }

  /** An Anthropic provider's stream, parsed strictly, guarded across all its blocks, re-serialised event by event. */
  private async streamAnthropic(
    p: Prepared,
    req: ExchangeRequest,
    emit: (frame: StreamFrame) => void,
    signal: AbortSignal,
  ): Promise<ExchangeResult> {
    const upstream = await this.upstream.anthropicStream(
      p.exchange.provider!,
      { ...p.body, stream: true },
      req.headers,
      signal,
    );
    if (upstream.status !== 200) {
      const text = await readAll(upstream.body);
      // A success other than 200 is not an answer this proxy knows how to guard.
      if (upstream.status < 400)
        throw new DomainError(ErrorCode.BAD_GATEWAY, `the provider answered a stream with ${upstream.status}`);
      const { body } = await this.providerError(p, parseObject(text), upstream.status, upstream.sentAt, new Date());
      emit({ kind: 'head', status: upstream.status, contentType: 'application/json', promptId: p.recording.id });
      emit({ kind: 'data', data: JSON.stringify((req.dialect ?? ANTHROPIC_DIALECT).errorBody(body)) });
      return { kind: 'answer', status: upstream.status, body: null, json: '', record: await p.recording.close() };
    }
    emit({ kind: 'head', status: 200, contentType: 'text/event-stream', promptId: p.recording.id });
    const responseGuard = p.exchange.guard('response');
    const guard = new AnswerStreamGuard(responseGuard, this.config.STREAM_HOLDBACK_CHARS, (u) =>
      refuses(u, p.settings),
    );
    const dialect = req.dialect ?? ANTHROPIC_DIALECT;
    const sent: string[] = [];
    // The events the guard released from one upstream chunk leave in one frame, as soon as the chunk is read.
    const frame = new FrameBatch(emit);
    const send = (events: StreamEvent[]) => {
      for (const e of events) {
        const sse = dialect.event(e);
        if (!sse) continue;
        sent.push(sse);
        frame.add(sse);
      }
    };
    const parser = new SseParser();
    // A character's UTF-8 bytes may be split between two reads: the decoder keeps the first part.
    const utf8 = new StringDecoder('utf8');
    let stop: { reason: string; detail: string } | undefined;
    // The upstream sent `message_stop`: the answer is whole, and what the guard still holds leaves
    // with that chunk's frame. Nothing after it is relayed, nor any error; the body is read to its
    // end all the same, so that its connection can serve another call, for STREAM_DRAIN_MS at most.
    let ended = false;
    let drain: NodeJS.Timeout | undefined;
    const finish = () => {
      const step = guard.finish();
      send(step.events);
      stop = step.stop;
    };
    try {
      reading: for await (const chunk of upstream.body) {
        if (ended) continue;
        try {
          const text = typeof chunk === 'string' ? chunk : utf8.write(chunk as Buffer);
          const { events, malformed } = readStreamEvents(parser.push(text));
          for (const event of events) {
            const step = guard.push(event);
            send(step.events);
            if (step.stop) {
              stop = step.stop;
              break reading;
            }
            if (!(event instanceof ContentDelta) && event.type === 'message_stop') {
              ended = true;
              break;
            }
          }
          if (malformed && !ended) {
            // Its name is the upstream's text, unscanned: not repeated to the client or the record.
            stop = { reason: 'malformed', detail: 'an event the proxy could not parse' };
            break reading;
          }
          if (ended) {
            finish();
            if (stop) break reading;
            drain = setTimeout(() => upstream.body.destroy(), STREAM_DRAIN_MS);
          }
        } finally {
          frame.flush();
        }
      }
      if (!ended && !stop && !signal.aborted) finish();
    } catch (err) {
      if (!ended && !signal.aborted) stop = { reason: 'upstream', detail: upstreamError(err).message };
    } finally {
      clearTimeout(drain);
      upstream.body.destroy();
    }
    const summary = this.summarize(responseGuard, guard.unreadable, stop?.reason === 'unreadable');
    if (stop?.reason === 'blocked' || stop?.reason === 'unreadable') {
      const message = blockMessage('response', summary.messages, stop.detail);
      send([
        {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message,
            cai_error: caiError([...p.request.results, ...summary.results]),
          },
        },
      ]);
      frame.flush();
      return this.blocked(p, 'response', summary);
    }
    if (stop)
      send([{ type: 'error', error: { type: 'api_error', message: `the provider's stream failed: ${stop.detail}` } }]);
    frame.flush();
    this.finish(p, summary, guard.delivered, {
      data: sent.join(''),
      statusCode: 200,
      sentDate: upstream.sentAt,
      receivedDate: new Date(),
    });
    return { kind: 'answer', status: 200, body: null, json: '', record: await p.recording.close() };
  }

  /** Opens the exchange and scans everything the model will read; a redaction rewrites the body in place. */
  private async prepare(req: ExchangeRequest): Promise<Prepared> {
    const exchange = await this.context.open(req.principal, req.provider, req.project);
    const settings = exchange.project.guard ?? {};
    const body = req.body;
    const provider = exchange.provider;
    if (provider && body.model === undefined) body.model = provider.inputs.model;
    if (provider && body.max_tokens === undefined) body.max_tokens = Number(provider.inputs.maxTokens) || 1024;
    const walk = walkRequest(body, { scanToolDescriptions: settings.scanToolDescriptions });
    const refusedAll = walk.unreadable.filter((u) => refuses(u, settings));
    if (refusedAll.length) {
      // The first few are named (a hostile body may hold thousands).
      const refusedTypes = refusedAll.slice(0, 10);
      const more =
        refusedAll.length > refusedTypes.length ? ` and ${refusedAll.length - refusedTypes.length} more` : '';
      throw DomainError.invalid(
        `the request holds content the guardrails cannot read: ${refusedTypes.map((u) => `${u.type} at ${u.where}`).join(', ')}${more}`,
        [
          ...refusedTypes.map((u) => ({
            loc: ['body', ...u.where.split(/[.[\]]+/).filter(Boolean)],
            msg: `${u.type} content cannot be scanned; this project refuses it`,
            type: 'unreadable',
          })),
        ],
      );
    }
    const recording = new Recording(this.recorder, {
      principal: req.principal,
      projectId: exchange.project.project.id,
      provider: exchange.provider?.name ?? '',
      providerId: exchange.provider?.id ?? null,
      input: '',
      externalMetadata: req.externalMetadata,
      templateId: req.templateId ?? null,
      type: 'prompt',
      source: req.source,
    });
    const guard = exchange.guard('request');
    const messages = Array.isArray(body.messages) ? body.messages.length : 0;
    // A provider reached through a template reads each turn's text blocks joined by line breaks.
    const templated = provider && provider.type !== ANTHROPIC_TYPE ? turnsAsTemplated(walk.leaves) : undefined;
    const { joined, verdict } = await checkLeavesAsRead(guard, walk.leaves, templated);
    const summary = this.summarize(guard, walk.unreadable, false);
    // A block the summary does not show (a redaction across a template's line break blocks) is a block all the same.
    const request: GuardSummary = verdict.blocked ? { ...summary, outcome: 'blocked' } : summary;
    // What the record keeps of the request: what was sent (redacted), or, when blocked, the attempt with its matches masked.
    const kept = verdict.blocked
      ? maskSpans(joined, request.actedSpans)
      : verdict.redactions.length
        ? maskSpans(joined, verdict.redactions)
        : joined;
    if (!verdict.blocked && verdict.redactions.length) writeLeaves(walk.leaves, kept);
    ({ input: recording.input, memory: recording.memory } = turnsOf(walk.leaves, kept, messages));
    recording.outcome = verdict.blocked ? 'blocked' : request.outcome;
    recording.results = request.results;
    exchange.count('request', recording.outcome);
    return { exchange, body, recording, request, settings };
  }

  private async viaTemplate(p: Prepared): Promise<{ text: string; sentDate: Date; receivedDate: Date }> {
    const turns = plainTurns(p.body.messages as never);
    const prompt = turns.filter((t) => t.role === 'user').at(-1)?.content ?? '';
    const result = await this.upstream.viaTemplate(p.exchange.provider!, prompt, turns);
    const sentDate = result.sentAt;
    const receivedDate = result.receivedAt ?? new Date();
    if (result.error !== null || result.content === null) {
      p.recording.providerResult = { data: '', statusCode: result.statusCode ?? 0, sentDate, receivedDate };
      // The error is the upstream's text (a template's `error` output reads its answer).
      const error = await guardedErrorText(
        p.exchange.guard('response'),
        result.error ?? 'no content in its answer',
        'its error message was withheld by a guardrail',
      );
      throw new DomainError(ErrorCode.BAD_GATEWAY, `the provider failed: ${error}`);
    }
    return { text: result.content, sentDate, receivedDate };
  }

  /**
   * A provider's error as the client gets it and the record keeps it: rebuilt from its type (one
   * of the API's, else `api_error`) and its message, which the response scanners see first: a
   * message they block is withheld, one they redact is masked, and their verdict is the response's.
   * Nothing else of the provider's body is passed on, so a hostile upstream cannot answer text
   * around the guard as an error.
   */
  private async providerError(
    p: Prepared,
    parsed: Record<string, unknown> | undefined,
    status: number,
    sentDate: Date,
    receivedDate: Date,
  ): Promise<{ body: Record<string, unknown>; json: string }> {
    const guard = p.exchange.guard('response');
    let body = upstreamErrorBody(status);
    if (parsed) {
      const error = isObject(parsed.error) ? parsed.error : {};
      const type = typeof error.type === 'string' && ERROR_TYPES.has(error.type) ? error.type : 'api_error';
      const message = await guardedErrorText(
        guard,
        typeof error.message === 'string' ? error.message : `the provider answered ${status}`,
        `the provider's error message (${status}) was withheld by a guardrail`,
      );
      body = { type: 'error', error: { type, message } };
    }
    const json = JSON.stringify(body);
    this.finish(p, this.summarize(guard, [], false), '', { data: json, statusCode: status, sentDate, receivedDate });
    return { body, json };
  }

  private summarize(guard: DirectionGuard, unreadable: Unreadable[], refused: boolean): GuardSummary {
    const summary = guard.summary();
    if (unreadable.length && summary.outcome !== 'blocked') {
      summary.outcome = refused ? 'blocked' : worstOutcome(summary.outcome, 'flagged');
      summary.messages.push(
        `content the guardrails cannot read: ${[...new Set(unreadable.map(unreadableName))].join(', ')}`,
      );
    }
    return summary;
  }

  private finish(
    p: Prepared,
    response: GuardSummary,
    text: string,
    providerResult: NonNullable<Recording['providerResult']>,
  ): void {
    p.recording.outcome = worstOutcome(p.recording.outcome, response.outcome);
    p.recording.results = [...p.request.results, ...response.results];
    p.recording.response = text;
    p.recording.providerResult = providerResult;
    p.exchange.count('response', response.outcome);
  }

  private async blocked(
    p: Prepared,
    direction: 'request' | 'response',
    summary: GuardSummary,
  ): Promise<ExchangeResult> {
    p.recording.outcome = 'blocked';
    if (direction === 'response') {
      p.recording.results = [...p.request.results, ...summary.results];
      p.exchange.count('response', 'blocked');
    }
    return {
      kind: 'blocked',
      direction,
      results: p.recording.results,
      messages: summary.messages,
      record: await p.recording.close(),
    };
  }
}

/** A guardrail block as the error the gateway renders in the route's own shape (a 400 carrying `cai_error`). */
export function blockedError(
  direction: 'request' | 'response',
  results: ScannerResultRecord[],
  messages: string[],
): DomainError {
  return new DomainError(ErrorCode.INVALID_ARGUMENT, blockMessage(direction, messages), [], undefined, {
    cai_error: caiError(results),
  });
}

/**
 * A streamed exchange as the frames a NATS stream handler returns. The gateway's cancel signal (or
 * unsubscribing) aborts the upstream call. A block found before the head is an ordinary error
 * answer; after it, the stream already carries an `error` event and simply ends.
 */
export function streamedExchange(
  nc: NatsConnection,
  cancelSubject: string | undefined,
  run: (emit: (frame: StreamFrame) => void, signal: AbortSignal) => Promise<ExchangeResult>,
): Observable<StreamFrame> {
  return new Observable<StreamFrame>((sub) => {
    const abort = new AbortController();
    const cancel = cancelSubject ? nc.subscribe(cancelSubject, { max: 1, callback: () => abort.abort() }) : undefined;
    let headSent = false;
    let settled = false;
    const emit = (frame: StreamFrame) => {
      if (frame.kind === 'head') headSent = true;
      if (!sub.closed) sub.next(frame);
    };
    Promise.resolve()
      .then(() => run(emit, abort.signal))
      .then((result) => {
        settled = true;
        if (result.kind === 'blocked' && !headSent)
          sub.error(blockedError(result.direction, result.results, result.messages));
        else sub.complete();
      })
      .catch((err: unknown) => {
        settled = true;
        sub.error(err);
      });
    return () => {
      cancel?.unsubscribe();
      // A finished exchange closed its upstream itself; aborting it would only build an AbortError
      // (a DOMException, with its stack) per stream.
      if (!settled) abort.abort();
    };
  });
}

/** How long the rest of a stream's body is read after `message_stop` before its connection is dropped (ms). */
export const STREAM_DRAIN_MS = 1000;

/** The most text one data frame carries (NATS refuses messages over its max_payload, 1 MB by default). */
const MAX_FRAME_CHARS = 128 * 1024;

/**
 * Server-sent events that are ready together, sent as one data frame: `add` collects, `flush`
 * emits what was collected (nothing waits for a timer; the caller flushes whenever it would
 * otherwise wait for more input). A frame that reached MAX_FRAME_CHARS is emitted at once.
 */
export class FrameBatch {
  private parts: string[] = [];
  private chars = 0;

  constructor(private readonly emit: (frame: StreamFrame) => void) {}

  add(sse: string): void {
    this.parts.push(sse);
    this.chars += sse.length;
    if (this.chars >= MAX_FRAME_CHARS) this.flush();
  }

  flush(): void {
    if (this.parts.length === 0) return;
    const data = this.parts.length === 1 ? this.parts[0] : this.parts.join('');
    this.parts = [];
    this.chars = 0;
    this.emit({ kind: 'data', data });
  }
}

export function caiError(results: ScannerResultRecord[]): {
  outcome: 'blocked';
  scanner_results: ScannerResultRecord[];
} {
  // As the API shows a recorded result: the spec's whole version meta.
  return {
    outcome: 'blocked',
    scanner_results: results.map(recordedScannerResultView),
  };
}

export function blockMessage(direction: 'request' | 'response', messages: string[], detail?: string): string {
  const why = messages.length
    ? `: ${messages.join('; ')}`
    : detail && detail !== 'a guardrail blocked the answer'
      ? `: ${detail}`
      : '';
  return `the ${direction} was blocked by a guardrail${why}`;
}

/** Scans a walk's leaves as the parts of their join (DirectionGuard.checkParts); the join, and the verdict in its offsets. */
/**
 * A provider's error text as the client may read it: the response scanners see it first, as any
 * answer; `withheld` stands in for a text they block, and what they redact is masked.
 */
async function guardedErrorText(guard: DirectionGuard, text: string, withheld: string): Promise<string> {
  const verdict = await guard.check(text);
  if (verdict.blocked) return withheld;
  return verdict.redactions.length ? maskSpans(text, verdict.redactions) : text;
}

async function checkLeaves(
  guard: DirectionGuard,
  leaves: readonly TextLeaf[],
): Promise<{ joined: string; verdict: WindowVerdict }> {
  const pieces = leafPieces(leaves);
  const joined = pieces.join('');
  return { joined, verdict: await guard.checkParts(pieces, joined) };
}

/**
 * Leaves as checkLeaves scans them, and as another reader reads their texts (`read`: an answer's
 * text blocks as a client shows them, a request's turns as a template gets them). That reader's
 * findings are the ones across what it reads otherwise than the join; one a scanner would redact
 * blocks instead: its span in the join holds what stands between its halves (another block's
 * text, with a signature that would no longer match), which masking would change.
 */
async function checkLeavesAsRead(
  guard: DirectionGuard,
  leaves: readonly TextLeaf[],
  read: TextsAsRead | undefined,
): Promise<{ joined: string; verdict: WindowVerdict }> {
  const checked = await checkLeaves(guard, leaves);
  if (!read) return checked;
  const seen = await guard.check(read.text, 0, read.place);
  if (!seen.blocked && seen.redactions.length === 0) return checked;
  return { joined: checked.joined, verdict: { blocked: true, redactions: checked.verdict.redactions } };
}

function refuses(u: Unreadable, settings: GuardSettings): boolean {
  // Nesting past what the walk reads is a body no setting passes (it could not even be re-serialised
  // safely), and so is a block's text that is not a string (see Unreadable).
  if (u.kind === 'too-deep' || u.kind === 'malformed' || settings.unreadableContent === 'refuse') return true;
  if (settings.unreadableContent === 'flag') return false;
  return u.kind === 'unknown';
}

/**
 * What the record keeps of the request, from the join of its leaves: `input`, the last message's
 * text ('' when it has none, a tool result without content); `memory`, the text of each turn before
 * it that has any (the system prompt first). Texts only: not what is scanned alone (identifiers,
 * keys, numbers), nor the tools' definitions or an output schema, which are scanned but are no
 * one's turn.
 */
function turnsOf(leaves: readonly TextLeaf[], joined: string, messages: number): { input: string; memory: string[] } {
  const turns = new Map<string, string>();
  for (const { leaf: l, at } of textsInJoin(leaves)) {
    const turn = /^(system|messages\[\d+\])/.exec(l.where)?.[1];
    if (turn) turns.set(turn, (turns.get(turn) ?? '') + joined.slice(at, at + l.text.length));
  }
  const last = `messages[${messages - 1}]`;
  const input = turns.get(last) ?? '';
  turns.delete(last);
  return { input, memory: [...turns.values()] };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function upstreamErrorBody(status: number): Record<string, unknown> {
  return {
    type: 'error',
    error: { type: 'api_error', message: `the provider answered ${status} with a body that is not JSON` },
  };
}

async function readAll(stream: AsyncIterable<unknown>): Promise<string> {
  const utf8 = new StringDecoder('utf8');
  const parts: string[] = [];
  for await (const c of stream) parts.push(typeof c === 'string' ? c : utf8.write(c as Buffer));
  parts.push(utf8.end());
  return parts.join('');
}
