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
  answer?: (req: RecordedRequest) => { status: number; body: string; headers?: Record<string, string>; delayMs?: number } | undefined;

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rec: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(rec);
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

  private defaultAnswer(req: RecordedRequest): { status: number; body: string; headers?: Record<string, string>; delayMs?: number } {
    if (req.url.startsWith('/v1/chat/completions')) {
      if (req.headers.authorization !== 'Bearer sk-test-good-key-123456') {
        return { status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) };
      }
      const prompt = JSON.parse(req.body).messages?.at(-1)?.content ?? '';
      return { status: 200, body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: `echo: ${prompt}` } }] }) };
    }
    if (req.url.startsWith('/slow')) return { status: 200, body: '{"output":"late"}', delayMs: 3000 };
    return { status: 404, body: JSON.stringify({ error: { message: `no route ${req.url}` } }) };
  }
}
