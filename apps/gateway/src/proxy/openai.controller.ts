import { Body, Controller, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import { ChatCompletionRequest, type Principal, ProxyRpc, ProxyStreams } from '@bastion/contracts';
import { NATS_CONNECTION, NatsRpcClient } from '@bastion/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IsString, MaxLength } from 'class-validator';
import { RequestId } from '../http/request-id.decorator';
import { relayStream } from './stream-relay';

class OpenAiParams {
  @IsString()
  @MaxLength(128)
  provider!: string;
}

/**
 * OpenAI's Chat Completions API, guarded: `baseURL = <gateway>/openai/<provider>` in an OpenAI SDK,
 * the project token as its API key. Errors in OpenAI's shape; streams as `chat.completion.chunk`s.
 */
@ApiTags('message proxy')
@ApiBearerAuth()
@Controller('openai/:provider')
export class OpenAiController {
  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  @Post('chat/completions')
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
    @Param() p: OpenAiParams,
    @Body() _checked: ChatCompletionRequest,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @RequestId() rid: string,
  ): Promise<void> {
    const body = req.body as Record<string, unknown>;
    const command = { principal, provider: p.provider, body, headers: {} };
    if (body.stream !== true) {
      const res = await this.rpc.longCall(ProxyRpc.chat, command, rid);
      void reply.status(res.status).header('x-bastion-prompt-id', res.promptId).send(res.body);
      return;
    }
    await relayStream(
      this.rpc,
      this.nc,
      ProxyStreams.chat,
      command,
      rid,
      reply,
      (message) => `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } })}\n\n`,
    );
  }
}
