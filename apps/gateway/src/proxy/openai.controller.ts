import { Body, Controller, Inject, Param, Post, Res, UseInterceptors } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import { ChatCompletionRequest, type Principal, ProxyRpc, ProxyStreams } from '@bastion/contracts';
import { NATS_CONNECTION, NatsRpcClient } from '@bastion/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyReply } from 'fastify';
import { NO_BODY, RAW_JSON_BODY, TENANT_GATED } from '../http/json-body';
import { RequestId } from '../http/request-id.decorator';
import { ProxyLane } from './proxy-lane';
import { asksForStream } from './stream-flag';
import { ProviderParams } from './provider-params';
import { relayStream, sendJson } from './stream-relay';
import { TenantGateInterceptor } from './tenant-gate';

/**
 * OpenAI's Chat Completions API, guarded: `baseURL = <gateway>/openai/<provider>` in an OpenAI SDK,
 * the project token as its API key. Errors in OpenAI's shape; streams as `chat.completion.chunk`s.
 */
@ApiTags('message proxy')
@ApiBearerAuth()
@UseInterceptors(TenantGateInterceptor)
@Controller('openai/:provider')
export class OpenAiController {
  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly lane: ProxyLane,
  ) {}

  @Post('chat/completions')
  @RouteConfig({ ...RAW_JSON_BODY, ...TENANT_GATED })
  @ApiBody({ type: ChatCompletionRequest })
  @ApiOperation({ summary: 'OpenAI Chat Completions through the guardrails (JSON, or SSE with stream: true)' })
  @ApiOkResponse({
    description: 'A chat.completion, or with stream: true chat.completion.chunk events ending in data: [DONE]',
    content: {
      'application/json': { schema: { $ref: '#/components/schemas/ChatCompletion' } },
      'text/event-stream': { schema: { type: 'string' } },
    },
  })
  async completions(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProviderParams,
    @Body() rawBody: Buffer | undefined,
    @Res() reply: FastifyReply,
    @RequestId() rid: string,
  ): Promise<void> {
    // The body goes on as sent; the message proxy parses and checks it as a ChatCompletionRequest.
    const command = { principal, provider: p.provider, rawBody: rawBody ?? NO_BODY, headers: {} };
    const bytes = command.rawBody.length;
    if (!asksForStream(command.rawBody)) {
      sendJson(reply, await this.rpc.longCall(this.lane.of(ProxyRpc.chat, bytes), command, rid));
      return;
    }
    await relayStream(
      this.rpc,
      this.nc,
      this.lane.of(ProxyStreams.chat, bytes),
      command,
      rid,
      reply,
      (message) => `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } })}\n\n`,
    );
  }
}
