import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import {
  CreatePromptTemplateRequest,
  ListPromptsQuery,
  type Principal,
  PromptIdParams,
  PromptRpc,
} from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/messaging';
import { RequestId } from '../http/request-id.decorator';
import { ApiReply } from '../http/api-reply';

/**
 * The prompt store: prompts the proxy recorded, and prompt templates. (POST /backend/v1/prompts,
 * which sends a prompt, belongs to the message proxy.) The router prefers the static `templates`
 * segment over `:id`, so `templates/{id}` never reaches the prompt route.
 */
@ApiTags('prompts')
@ApiBearerAuth()
@Controller('backend/v1/prompts')
export class PromptsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get()
  @ApiOperation({
    summary: 'List prompts, newest first (cursor pagination; filters projectId, outcomes, after, before)',
  })
  @ApiReply('PromptPage')
  list(@CurrentPrincipal() principal: Principal, @Query() q: ListPromptsQuery, @RequestId() rid: string) {
    return this.rpc.call(PromptRpc.list, { principal, ...q }, rid);
  }

  @Post('templates')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a prompt template from a prompt' })
  @ApiReply('PromptTemplateReply')
  createTemplate(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreatePromptTemplateRequest,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(PromptRpc.createTemplate, { principal, body }, rid);
  }

  @Get('templates/:id')
  @ApiOperation({ summary: 'Get a prompt template with the prompts sent from it' })
  @ApiReply('PromptTemplateDetail')
  getTemplate(@CurrentPrincipal() principal: Principal, @Param() p: PromptIdParams, @RequestId() rid: string) {
    return this.rpc.call(PromptRpc.getTemplate, { principal, id: p.id }, rid);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a prompt with its result and scanner results' })
  @ApiReply('PromptReply')
  get(@CurrentPrincipal() principal: Principal, @Param() p: PromptIdParams, @RequestId() rid: string) {
    return this.rpc.call(PromptRpc.get, { principal, id: p.id }, rid);
  }
}
