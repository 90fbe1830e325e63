import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import {
  CloudInitQuery,
  ListTokensQuery,
  type Principal,
  RegisterBootstrapRequest,
  RegistrationsByTokenRequest,
  TokenRpc,
} from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/messaging';
import type { FastifyRequest } from 'fastify';
import { RequestId } from '../http/request-id.decorator';
import { NamespaceParams, TokenParams } from '../tokens/token-params.dto';
import { ApiReply } from '../http/api-reply';

/** Site registration with a token, the registrations it made, cloud-init and the JWT keys. */
@ApiTags('site admission')
@Controller()
export class AdmissionController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** No bearer token: the site admission token in the body is the credential. */
  @Post('api/register/registerBootstrap')
  @HttpCode(200)
  @ApiOperation({ summary: 'Register a site with a site admission token (401 "invalid token" when refused)' })
  @ApiReply('RegistrationObject')
  register(@Body() body: RegisterBootstrapRequest, @Req() req: FastifyRequest, @RequestId() rid: string) {
    // Sites send more passport fields than we validate; keep them, with the validated ones on top.
    const raw = (req.body as { spec?: { passport?: unknown } } | undefined)?.spec?.passport;
    const passport = { ...(isPlainObject(raw) ? raw : {}), ...body.spec.passport };
    return this.rpc.call(TokenRpc.register, { body, passport, sourceAddress: req.ip }, rid);
  }

  @ApiBearerAuth()
  @Get('api/register/namespaces/:namespace/registrations')
  @ApiOperation({ summary: 'List site registrations, sorted by name' })
  @ApiReply('RegistrationListResponse')
  list(
    @CurrentPrincipal() principal: Principal,
    @Param() p: NamespaceParams,
    @Query() q: ListTokensQuery,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(
      TokenRpc.listRegistrations,
      { principal, namespace: p.namespace, labelFilter: q.label_filter, reportFields: q.report_fields !== undefined },
      rid,
    );
  }

  @ApiBearerAuth()
  @Delete('api/register/namespaces/:namespace/registrations/:name')
  @ApiOperation({ summary: 'Delete a site registration, freeing its node name for any token' })
  @ApiReply('EmptyResponse')
  deleteRegistration(@CurrentPrincipal() principal: Principal, @Param() p: TokenParams, @RequestId() rid: string) {
    return this.rpc.call(TokenRpc.deleteRegistration, { principal, namespace: p.namespace, name: p.name }, rid);
  }

  @ApiBearerAuth()
  @Post('api/register/namespaces/system/get-registrations-by-token')
  @HttpCode(200)
  @ApiOperation({ summary: 'List the registrations made with one token' })
  @ApiReply('RegistrationListResponse')
  byToken(
    @CurrentPrincipal() principal: Principal,
    @Body() body: RegistrationsByTokenRequest,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(TokenRpc.registrationsByToken, { principal, siteToken: body.site_token }, rid);
  }

  @ApiBearerAuth()
  @Get('api/register/namespaces/system/get-cloud-init-config')
  @ApiOperation({
    summary: "A site's cloud-init, with the site's valid JWT token (issued only when it has none)",
    operationId: 'ves.io.schema.token.CustomAPI.GetCloudInitConfig',
  })
  @ApiReply('CloudInitResponse')
  cloudInit(@CurrentPrincipal() principal: Principal, @Query() q: CloudInitQuery, @RequestId() rid: string) {
    return this.rpc.call(TokenRpc.cloudInit, { principal, provider: q.provider, siteName: q.site_name }, rid);
  }

  @Get('.well-known/jwks.json')
  @ApiOperation({ summary: 'Public keys that verify site JWTs' })
  @ApiReply('Jwks')
  jwks(@RequestId() rid: string) {
    return this.rpc.call(TokenRpc.jwks, {}, rid);
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
