import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import {
  CreateProviderRequest,
  PageQuery,
  type Principal,
  ProviderIdResponseSchema,
  ProviderResponseSchema,
  ProviderRpc,
  ProviderTestExchangeSchema,
  ProviderTestResultSchema,
  TestProviderRequest,
  UpdateProviderRequest,
} from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/messaging';
import { IsString, MaxLength } from 'class-validator';
import { RequestId } from '../http/request-id.decorator';
import { ApiReply } from '../http/api-reply';

class ProviderRefParams {
  @IsString()
  @MaxLength(128)
  ref!: string;
}

/** Providers: the system catalog, tenant providers, and the connection tester. */
@ApiTags('providers')
@ApiBearerAuth()
@Controller('backend/v1/providers')
export class ProvidersController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get('system')
  @ApiOperation({ summary: 'List system providers' })
  @ApiReply('SystemProviderList')
  listSystem(@CurrentPrincipal() principal: Principal, @RequestId() rid: string) {
    return this.rpc.call(ProviderRpc.listSystem, { principal }, rid);
  }

  @Get('system/:ref')
  @ApiOperation({ summary: 'Get a system provider by id or name' })
  @ApiReply('SystemProviderReply')
  getSystem(@CurrentPrincipal() principal: Principal, @Param() p: ProviderRefParams, @RequestId() rid: string) {
    return this.rpc.call(ProviderRpc.getSystem, { principal, ref: p.ref }, rid);
  }

  @Post('test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Test a provider template (request or workflow) or a system provider; inputs.prompt is the test prompt',
  })
  @ApiExtraModels(ProviderTestExchangeSchema)
  @ApiOkResponse({ type: ProviderTestResultSchema })
  test(@CurrentPrincipal() principal: Principal, @Body() body: TestProviderRequest, @RequestId() rid: string) {
    return this.rpc.longCall(ProviderRpc.test, { principal, body }, rid);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Create a provider from a system provider or a template (request or workflow); test: true tests it before saving',
  })
  @ApiOkResponse({ type: ProviderIdResponseSchema })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateProviderRequest, @RequestId() rid: string) {
    return this.rpc.longCall(ProviderRpc.create, { principal, body }, rid);
  }

  @Get()
  @ApiOperation({ summary: 'List providers (cursor pagination)' })
  @ApiReply('ProviderPage')
  list(@CurrentPrincipal() principal: Principal, @Query() q: PageQuery, @RequestId() rid: string) {
    return this.rpc.call(ProviderRpc.list, { principal, limit: q.limit, cursor: q.cursor }, rid);
  }

  @Get(':ref')
  @ApiOperation({ summary: 'Get a provider by id or name (secrets masked)' })
  @ApiOkResponse({ type: ProviderResponseSchema })
  get(@CurrentPrincipal() principal: Principal, @Param() p: ProviderRefParams, @RequestId() rid: string) {
    return this.rpc.call(ProviderRpc.get, { principal, ref: p.ref }, rid);
  }

  @Patch(':ref')
  @ApiOperation({ summary: 'Update a provider; test: true tests the result before saving' })
  @ApiOkResponse({ type: ProviderResponseSchema })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProviderRefParams,
    @Body() body: UpdateProviderRequest,
    @RequestId() rid: string,
  ) {
    return this.rpc.longCall(ProviderRpc.update, { principal, ref: p.ref, body }, rid);
  }

  @Delete(':ref')
  @ApiOperation({ summary: 'Delete a provider' })
  @ApiReply('EmptyResponse')
  delete(@CurrentPrincipal() principal: Principal, @Param() p: ProviderRefParams, @RequestId() rid: string) {
    return this.rpc.call(ProviderRpc.delete, { principal, ref: p.ref }, rid);
  }
}
