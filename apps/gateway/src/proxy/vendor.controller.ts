import { Body, Controller, Headers, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import { MessagesRequest, type Principal, ProxyRpc, ProxyStreams } from '@bastion/contracts';
import { NATS_CONNECTION, NatsRpcClient } from '@bastion/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IsString, MaxLength } from 'class-validator';
import { RequestId } from '../http/request-id.decorator';
import { relayStream } from './stream-relay';
import { requestTimings } from '../timing/phase-metrics';
import { remoteTimings, splitRoundTrip } from '../timing/server-timing';

class VendorParams {
  @IsString()
  @MaxLength(128)
  provider!: string;
}

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
  @ApiOkResponse({
    description:
      "The provider's answer as the provider sent it: a Message (JSON), or with stream: true its server-sent events",
    content: {
      'application/json': { schema: { type: 'object', additionalProperties: true } },
      'text/event-stream': { schema: { type: 'string' } },
    },
  })
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
      const res = await this.rpc.longCall(
        ProxyRpc.messages,
        { principal, provider: p.provider, body, headers: forward },
        rid,
      );
      Object.assign(timings, splitRoundTrip(performance.now() - started, remoteTimings(res.timing)));
      void reply.status(res.status).header('x-bastion-prompt-id', res.promptId).send(res.body);
      return;
    }
    await relayStream(
      this.rpc,
      this.nc,
      ProxyStreams.messages,
      { principal, provider: p.provider, body, headers: forward },
      rid,
      reply,
      (message) =>
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message } })}\n\n`,
      { timings, started },
    );
  }
}

export function pick(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => headers[n]).map((n) => [n, headers[n]]));
}
