import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import {
  CreateTokenRequest,
  DeleteTokenRequest,
  GetTokenQuery,
  ListTokensQuery,
  type Principal,
  ReplaceTokenRequest,
  TokenRpc,
  TokenStateRequest,
} from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/messaging';
import { RequestId } from '../http/request-id.decorator';
import { NamespaceParams, TokenParams } from './token-params.dto';
import { ApiReply } from '../http/api-reply';

/** The site admission token API (`ves.io.schema.token`). Each route is one NATS request. */
@ApiTags('tokens')
@ApiBearerAuth()
@Controller('api/register/namespaces/:namespace/tokens')
export class TokensController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a token', operationId: 'ves.io.schema.token.API.Create' })
  @ApiReply('TokenCreateResponse')
  create(
    @CurrentPrincipal() principal: Principal,
    @Param() p: NamespaceParams,
    @Body() body: CreateTokenRequest,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(TokenRpc.create, { principal, namespace: p.namespace, body }, rid);
  }

  @Put(':name')
  @ApiOperation({ summary: 'Replace a token (metadata only)', operationId: 'ves.io.schema.token.API.Replace' })
  @ApiReply('EmptyResponse')
  replace(
    @CurrentPrincipal() principal: Principal,
    @Param() p: TokenParams,
    @Body() body: ReplaceTokenRequest,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(TokenRpc.replace, { principal, namespace: p.namespace, name: p.name, body }, rid);
  }

  @Get()
  @ApiOperation({ summary: 'List tokens, sorted by name', operationId: 'ves.io.schema.token.API.List' })
  @ApiReply('TokenListResponse')
  list(
    @CurrentPrincipal() principal: Principal,
    @Param() p: NamespaceParams,
    @Query() q: ListTokensQuery,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(
      TokenRpc.list,
      {
        principal,
        namespace: p.namespace,
        labelFilter: q.label_filter,
        reportFields: q.report_fields !== undefined,
        reportStatusFields: q.report_status_fields !== undefined,
      },
      rid,
    );
  }

  @Get(':name')
  @ApiOperation({ summary: 'Get a token', operationId: 'ves.io.schema.token.API.Get' })
  @ApiReply('TokenGetResponse')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param() p: TokenParams,
    @Query() q: GetTokenQuery,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(
      TokenRpc.get,
      {
        principal,
        namespace: p.namespace,
        name: p.name,
        responseFormat: q.response_format ?? 'GET_RSP_FORMAT_DEFAULT',
      },
      rid,
    );
  }

  @Delete(':name')
  @ApiOperation({ summary: 'Delete a token', operationId: 'ves.io.schema.token.API.Delete' })
  @ApiReply('EmptyResponse')
  delete(
    @CurrentPrincipal() principal: Principal,
    @Param() p: TokenParams,
    @Body() body: DeleteTokenRequest,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(
      TokenRpc.delete,
      { principal, namespace: p.namespace, name: p.name, failIfReferred: body.fail_if_referred ?? false },
      rid,
    );
  }

  @Post(':name/state')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set a token state', operationId: 'ves.io.schema.token.CustomAPI.TokenState' })
  @ApiReply('TokenObjectChangeResponse')
  setState(
    @CurrentPrincipal() principal: Principal,
    @Param() p: TokenParams,
    @Body() body: TokenStateRequest,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(
      TokenRpc.setState,
      { principal, namespace: p.namespace, name: p.name, state: body.state ?? 'UNKNOWN' },
      rid,
    );
  }
}
