import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import { ApiKeyIdParams, ApiKeyRpc, CreateApiKeyRequest, ListApiKeysQuery, type Principal } from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/messaging';
import { ApiKeyCache } from '../access/api-key-cache';
import { ApiReply } from '../http/api-reply';
import { RequestId } from '../http/request-id.decorator';

/** API keys for apps and SDKs (`x-api-key`, or `Authorization` with or without `Bearer`). */
@ApiTags('api tokens')
@ApiBearerAuth()
@Controller('backend/v1/tokens')
export class ApiTokensController {
  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly keys: ApiKeyCache,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create an API key; its value is in this answer and nowhere else' })
  @ApiReply('ApiKeyCreateResponse')
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateApiKeyRequest, @RequestId() rid: string) {
    const created = await this.rpc.call(ApiKeyRpc.create, { principal, body }, rid);
    // Whatever this gateway believed of the id before it existed, the key works from this answer on.
    this.keys.forget(created.token.id);
    return created;
  }

  @Get()
  @ApiOperation({ summary: 'List API keys, newest first (cursor pagination; filter projectId)' })
  @ApiReply('ApiKeyPage')
  list(@CurrentPrincipal() principal: Principal, @Query() q: ListApiKeysQuery, @RequestId() rid: string) {
    return this.rpc.call(ApiKeyRpc.list, { principal, ...q }, rid);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an API key (never its value)' })
  @ApiReply('ApiKeyReply')
  get(@CurrentPrincipal() principal: Principal, @Param() p: ApiKeyIdParams, @RequestId() rid: string) {
    return this.rpc.call(ApiKeyRpc.get, { principal, id: p.id }, rid);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke an API key: refused on every gateway within a second' })
  @ApiReply('MessageResponse')
  delete(@CurrentPrincipal() principal: Principal, @Param() p: ApiKeyIdParams, @RequestId() rid: string) {
    return this.rpc.call(ApiKeyRpc.delete, { principal, id: p.id }, rid);
  }
}
