import { Body, Controller, Headers, Inject, Param, Post, Req, Res, UseInterceptors } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import { MessagesRequest, type Principal, ProxyRpc, ProxyStreams } from '@bastion/contracts';
import { NATS_CONNECTION, NatsRpcClient } from '@bastion/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NO_BODY, RAW_JSON_BODY, TENANT_GATED } from '../http/json-body';
import { RequestId } from '../http/request-id.decorator';
import { ProviderParams } from './provider-params';
import { ProxyLane } from './proxy-lane';
import { asksForStream } from './stream-flag';
import { relayStream, sendJson } from './stream-relay';
import { requestTimings } from '../timing/phase-metrics';
import { remoteTimings, splitRoundTrip } from '../timing/server-timing';
import { TenantGateInterceptor } from './tenant-gate';

/**
 * The Anthropic Messages API, guarded: `baseURL = <gateway>/vendor/<provider>` in an Anthropic SDK,
 * the project token as its API key. The body goes on as the bytes the client sent: the message
 * proxy parses and checks it (a 400 in Anthropic's shape when it is not a MessagesRequest), and
 * fields it does not read are the provider's. Streams travel as a stream of NATS replies and leave as SSE.
 */
@ApiTags('message proxy')
@ApiBearerAuth()
@UseInterceptors(TenantGateInterceptor)
@Controller('vendor/:provider/v1')
export class VendorController {
  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly lane: ProxyLane,
  ) {}

  @Post('messages')
  @RouteConfig({ ...RAW_JSON_BODY, ...TENANT_GATED })
  @ApiBody({ type: MessagesRequest })
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
    @Param() p: ProviderParams,
    @Body() rawBody: Buffer | undefined,
    @Headers() headers: Record<string, string>,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @RequestId() rid: string,
  ): Promise<void> {
    const forward = pick(headers, ['anthropic-version', 'anthropic-beta']);
    // No body at all (no content type either) is the proxy's to refuse, as any text that is not a request.
    const command = { principal, provider: p.provider, rawBody: rawBody ?? NO_BODY, headers: forward };
    const timings = requestTimings(req);
    const started = performance.now();
    const bytes = command.rawBody.length;
    if (!asksForStream(command.rawBody)) {
      const res = await this.rpc.longCall(this.lane.of(ProxyRpc.messages, bytes), command, rid);
      Object.assign(timings, splitRoundTrip(performance.now() - started, remoteTimings(res.timing)));
      sendJson(reply, res);
      return;
    }
    await relayStream(
      this.rpc,
      this.nc,
      this.lane.of(ProxyStreams.messages, bytes),
      command,
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
