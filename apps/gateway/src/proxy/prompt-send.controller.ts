import { Body, Controller, HttpCode, Post, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import { type Principal, ProxyRpc, ScanRequest, SendPromptRequest } from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/messaging';
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
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a prompt through a provider, scanned both ways; answers the recorded Prompt' })
  @ApiReply('PromptView')
  send(@CurrentPrincipal() principal: Principal, @Body() body: SendPromptRequest, @RequestId() rid: string) {
    // A template's input is read by the proxy, and may be as long as any stored prompt.
    const chars = body.promptTemplateId ? Infinity : (body.input?.length ?? 0);
    return this.rpc.longCall(this.lane.of(ProxyRpc.sendPrompt, chars), { principal, body }, rid);
  }

  @Post('scans')
  @HttpCode(200)
  @ApiOperation({ summary: "Scan text with a project's scanners (no model call)" })
  @ApiReply('PromptView')
  scan(@CurrentPrincipal() principal: Principal, @Body() body: ScanRequest, @RequestId() rid: string) {
    return this.rpc.call(this.lane.of(ProxyRpc.scan, body.input.length), { principal, body }, rid);
  }
}
