import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A real HTTP server on 127.0.0.1 that answers like model vendors: OpenAI chat completions,
 * Anthropic messages (JSON and SSE), and a few failure modes. Tests point providers at it.
 */
export class MockUpstream {
  readonly requests: RecordedRequest[] = [];
  private server?: Server;
  /** Lets a test replace the answer of the next requests. */
  answer?: (
    req: RecordedRequest,
  ) => { status: number; body: string; headers?: Record<string, string>; delayMs?: number } | undefined;

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rec: RecordedRequest = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        this.requests.push(rec);
        if (rec.url.startsWith('/v1/messages')) {
          const delayMs = this.answerDelayMs;
          let timer: NodeJS.Timeout | undefined;
          // A request the caller gave up on is not answered later (nor keeps a timer alive).
          res.on('close', () => clearTimeout(timer));
          void Promise.resolve(this.hold).then(() => {
            if (!res.destroyed) timer = setTimeout(() => this.anthropic(rec, res), delayMs);
          });
          return;
        }
        const custom = this.answer?.(rec);
        const reply = custom ?? this.defaultAnswer(rec);
        setTimeout(() => {
          res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
          res.end(reply.body);
        }, reply.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** What the mock model says: an echo, or `reply` when a test set one. */
  reply?: (userText: string) => string;

  /** Content blocks of any type for the answer (text, thinking, tool_use, server-tool results), instead of one text block. */
  blocks?: () => Record<string, unknown>[];

  /**
   * A raw body for the next Anthropic answers, sent as it is (for malformed or hostile streams and
   * bodies); with `splitAt`, its UTF-8 bytes are written in parts cut at those offsets, 20 ms apart,
   * so the proxy reads them separately; with `holdOpenMs`, the response ends that long after the
   * last part (an upstream that keeps its stream open).
   */
  raw?: { status: number; contentType: string; body: string; splitAt?: number[]; holdOpenMs?: number };

  /**
   * Anthropic's Messages API: the key must be `sk-ant-mock-key-000000`; the answer echoes the last
   * user text (or `reply`), as JSON or as Anthropic's SSE events in small deltas.
   */
  private anthropic(rec: RecordedRequest, res: import('node:http').ServerResponse): void {
    if (rec.headers['x-api-key'] !== 'sk-ant-mock-key-000000') {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
      return;
    }
    if (this.raw) {
      res.writeHead(this.raw.status, { 'content-type': this.raw.contentType });
      const bytes = Buffer.from(this.raw.body, 'utf8');
      const cuts = [0, ...(this.raw.splitAt ?? []), bytes.length];
      const holdOpenMs = this.raw.holdOpenMs ?? 0;
      const write = (i: number) => {
        if (i + 1 >= cuts.length || res.destroyed) {
          if (holdOpenMs > 0) setTimeout(() => res.end(), holdOpenMs).unref();
          else res.end();
          return;
        }
        res.write(bytes.subarray(cuts[i], cuts[i + 1]));
        setTimeout(() => write(i + 1), 20);
      };
      write(0);
      return;
    }
    const body = JSON.parse(rec.body) as {
      model: string;
      stream?: boolean;
      messages: { role: string; content: string | { type: string; text?: string }[] }[];
    };
    const last = [...body.messages].reverse().find((m) => m.role === 'user');
    const userText =
      typeof last?.content === 'string' ? last.content : (last?.content ?? []).map((b) => b.text ?? '').join('');
    const text = this.reply ? this.reply(userText) : `echo: ${userText}`;
    const message = {
      id: 'msg_mock_1',
      type: 'message',
      role: 'assistant',
      model: body.model,
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 5 },
    };
    const content = this.blocks?.() ?? [{ type: 'text', text }];
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...message, content, stop_reason: 'end_turn' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const events: [string, unknown][] = [
      ['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } }],
      ['ping', { type: 'ping' }],
      ...content.flatMap((block, index) => streamedBlock(block, index)),
      [
        'message_delta',
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } },
      ],
      ['message_stop', { type: 'message_stop' }],
    ];
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      if (i >= events.length) return void res.end();
      const [event, data] = events[i++];
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      setTimeout(next, this.streamDelayMs);
    };
    next();
  }

  /** Pause between streamed events (ms), so tests can disconnect mid-stream. */
  streamDelayMs = 2;

  /** Pause before /v1/messages answers at all, headers included (ms), so tests can outlast a timeout. */
  answerDelayMs = 0;

  /**
   * While set, /v1/messages requests that arrive wait for it to settle before their answer (and its
   * `answerDelayMs`) starts: a test holds calls upstream for as long as it needs, not for a guessed time.
   */
  hold?: Promise<unknown>;

  private defaultAnswer(req: RecordedRequest): {
    status: number;
    body: string;
    headers?: Record<string, string>;
    delayMs?: number;
  } {
    if (req.url.startsWith('/v1/chat/completions')) {
      if (req.headers.authorization !== 'Bearer sk-test-good-key-123456') {
        return { status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) };
      }
      const prompt = JSON.parse(req.body).messages?.at(-1)?.content ?? '';
      return {
        status: 200,
        body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: `echo: ${prompt}` } }] }),
      };
    }
    if (req.url.startsWith('/slow')) return { status: 200, body: '{"output":"late"}', delayMs: 3000 };
    return { status: 404, body: JSON.stringify({ error: { message: `no route ${req.url}` } }) };
  }
}

/** One content block as Anthropic streams it: a start, deltas of 5 characters, a stop. */
function streamedBlock(block: Record<string, unknown>, index: number): [string, unknown][] {
  const delta = (d: Record<string, unknown>): [string, unknown] => [
    'content_block_delta',
    { type: 'content_block_delta', index, delta: d },
  ];
  let start: Record<string, unknown> = block;
  let deltas: [string, unknown][] = [];
  if (block.type === 'text') {
    start = { type: 'text', text: '' };
    deltas = chunks(String(block.text), 5).map((t) => delta({ type: 'text_delta', text: t }));
  } else if (block.type === 'thinking') {
    start = { type: 'thinking', thinking: '' };
    deltas = [
      ...chunks(String(block.thinking), 5).map((t) => delta({ type: 'thinking_delta', thinking: t })),
      delta({ type: 'signature_delta', signature: 'sig' }),
    ];
  } else if (block.type === 'tool_use') {
    start = { ...block, input: {} };
    deltas = chunks(JSON.stringify(block.input), 5).map((t) => delta({ type: 'input_json_delta', partial_json: t }));
  }
  return [
    ['content_block_start', { type: 'content_block_start', index, content_block: start }],
    ...deltas,
    ['content_block_stop', { type: 'content_block_stop', index }],
  ];
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
