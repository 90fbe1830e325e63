import { randomUUID } from 'node:crypto';
import { Body, Controller, Headers, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import { MessagesRequest, type Principal, ProxySubjects } from '@bastion/contracts';
import { NATS_CONNECTION, NatsRpcClient } from '@bastion/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IsString, MaxLength } from 'class-validator';
import { RequestId } from '../http/request-id.decorator';
import { requestTimings } from '../timing/phase-metrics';
import { remoteTimings, serverTimingHeader, splitRoundTrip } from '../timing/server-timing';

class VendorParams {
  @IsString()
  @MaxLength(128)
  provider!: string;
}

/**
 * The proxy's reply and stream head may carry `timing`: ms spent in `guard`, `upstream` and
 * `record` (see ../timing/server-timing.ts); without it the whole round trip counts as `rpc`.
 */
type Frame = { kind: 'head'; status: number; contentType: string; promptId: string; timing?: unknown } | { kind: 'data'; data: string };
type Reply = { status: number; body: unknown; promptId: string; timing?: unknown };

/** How long a stream may stay silent before the gateway gives up on it (ms). */
const STREAM_IDLE_MS = 120_000;

/**
 * The Anthropic Messages API, guarded: `baseURL = <gateway>/vendor/<provider>` in an Anthropic SDK,
 * the project token as its API key. Streams travel as a stream of NATS replies and leave as SSE.
 */
@ApiTags('message proxy')
@ApiBearerAuth()
@Controller('vendor/:provider/v1')
export class VendorController {
  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  @Post('messages')
  @ApiOperation({ summary: 'Anthropic Messages API through the guardrails (JSON, or SSE with stream: true)' })
  async messages(
    @CurrentPrincipal() principal: Principal,
    @Param() p: VendorParams,
    @Body() _checked: MessagesRequest,
    @Headers() headers: Record<string, string>,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @RequestId() rid: string,
  ): Promise<void> {
    // The body goes on as the client sent it: fields the proxy does not read are the provider's.
    const body = req.body as Record<string, unknown>;
    const forward = pick(headers, ['anthropic-version', 'anthropic-beta']);
    const timings = requestTimings(req);
    const started = performance.now();
    if (body.stream !== true) {
      const res = await this.rpc.request<Reply>(ProxySubjects.messages, { principal, provider: p.provider, body, headers: forward }, rid);
      Object.assign(timings, splitRoundTrip(performance.now() - started, remoteTimings(res.timing)));
      void reply.status(res.status).header('x-bastion-prompt-id', res.promptId).send(res.body);
      return;
    }
    const cancelSubject = `proxy.cancel.${randomUUID()}`;
    const frames = this.rpc.stream<Frame>(ProxySubjects.messagesStream, { principal, provider: p.provider, body, headers: forward, cancelSubject }, rid, STREAM_IDLE_MS);
    // Until the first frame arrives nothing is sent, so an early error (a block, an unknown
    // provider, a limit) still leaves as an ordinary JSON error with its status.
    const first = await frames.next();
    if (first.done || first.value.kind !== 'head') throw new Error('the message proxy sent no head');
    const head = first.value;
    // The phases up to the head: what follows the head cannot be reported in a header.
    Object.assign(timings, splitRoundTrip(performance.now() - started, remoteTimings(head.timing)));
    const serverTiming = serverTimingHeader(timings);
    reply.hijack();
    reply.raw.writeHead(head.status, {
      ...(serverTiming ? { 'server-timing': serverTiming } : {}),
      'content-type': head.contentType,
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-request-id': rid,
      'x-bastion-prompt-id': head.promptId,
    });
    let finished = false;
    reply.raw.on('close', () => {
      if (!finished) this.nc.publish(cancelSubject, '');
    });
    try {
      for await (const frame of frames) if (frame.kind === 'data') reply.raw.write(frame.data);
    } catch (err) {
      const message = err instanceof Error ? err.message : 'stream failed';
      reply.raw.write(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message } })}\n\n`);
    } finally {
      finished = true;
      reply.raw.end();
    }
  }
}

function pick(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => headers[n]).map((n) => [n, headers[n]]));
}
