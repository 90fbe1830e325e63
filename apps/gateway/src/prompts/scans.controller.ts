import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import { type Principal, PromptIdParams, PromptRpc, ScanResponseSchema } from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/messaging';
import { RequestId } from '../http/request-id.decorator';

/** Stored scans, from the prompt store. (POST /backend/v1/scans, which scans, belongs to the message proxy.) */
@ApiTags('prompts')
@ApiBearerAuth()
@Controller('backend/v1/scans')
export class ScansController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get(':id')
  @ApiOperation({ summary: "Get a stored scan (a project-scoped token sees only its project's scans)" })
  @ApiOkResponse({ type: ScanResponseSchema })
  get(@CurrentPrincipal() principal: Principal, @Param() p: PromptIdParams, @RequestId() rid: string) {
    return this.rpc.call(PromptRpc.getScan, { principal, id: p.id }, rid);
  }
}
