import { Body, Controller, HttpCode, Post, Req, UseInterceptors } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import { type Principal, ProxyRpc, ScanRequest, SendPromptRequest } from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/messaging';
import type { FastifyRequest } from 'fastify';
import { bodyBytesOf, TENANT_GATED } from '../http/json-body';
import { RequestId } from '../http/request-id.decorator';
import { ApiReply } from '../http/api-reply';
import { ProxyLane } from './proxy-lane';
import { TenantGateInterceptor } from './tenant-gate';

/** Sending a prompt through a provider, and scanning text, with a project's guardrails. */
@ApiTags('prompts')
@ApiBearerAuth()
@UseInterceptors(TenantGateInterceptor)
@Controller('backend/v1')
export class PromptSendController {
  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly lane: ProxyLane,
  ) {}

  @Post('prompts')
  @RouteConfig(TENANT_GATED)
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a prompt through a provider, scanned both ways; answers the recorded Prompt' })
  @ApiReply('PromptView')
  send(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SendPromptRequest,
    @Req() req: FastifyRequest,
    @RequestId() rid: string,
  ) {
    // The whole body (input, metadata) weighs on the proxy; a template's input is read by the proxy,
    // and may be as long as any stored prompt.
    const size = body.promptTemplateId ? Infinity : bodyBytesOf(req);
    return this.rpc.longCall(this.lane.of(ProxyRpc.sendPrompt, size), { principal, body }, rid);
  }

  @Post('scans')
  @RouteConfig(TENANT_GATED)
  @HttpCode(200)
  @ApiOperation({ summary: "Scan text with a project's scanners (no model call)" })
  @ApiReply('PromptView')
  scan(
    @CurrentPrincipal() principal: Principal,
    @Body() body: ScanRequest,
    @Req() req: FastifyRequest,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(this.lane.of(ProxyRpc.scan, bodyBytesOf(req)), { principal, body }, rid);
  }
}
