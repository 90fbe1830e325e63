import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import {
  CreateScannerRequest,
  DATASET_MAX_BYTES,
  PageQuery,
  PackagePageSchema,
  type Principal,
  ScannerRpc,
  UpdateScannerRequest,
  UpdateScannerVersionRequest,
} from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/messaging';
import type { TextBodyRouteConfig } from '../http/json-body';
import { RequestId } from '../http/request-id.decorator';
import { evaluateDataset } from './dataset-transfer';
import { ApiReply } from '../http/api-reply';
import { PackagesQuery, ScannerIdParams, ScannerVersionParams } from './project-params.dto';

/** The dataset is the body itself, as text, up to 10 MB (the global body limit stays for every other route). */
const CSV_BODY: TextBodyRouteConfig = { textBody: true, bodyLimit: DATASET_MAX_BYTES };

/** Scanners (guardrails), their versions and dataset scores, and the built-in packages. */
@ApiTags('scanners')
@ApiBearerAuth()
@Controller('backend/v1')
export class ScannersController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Post('scanners')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create a scanner (its first version, v_1); a config that cannot run on RE2 is a 422 saying why',
  })
  @ApiReply('ScannerCreateResponse')
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateScannerRequest, @RequestId() rid: string) {
    return this.rpc.call(ScannerRpc.create, { principal, body }, rid);
  }

  @Get('scanners')
  @ApiOperation({ summary: "List the tenant's scanners and the built-in ones, newest first (cursor pagination)" })
  @ApiReply('ScannerPage')
  list(@CurrentPrincipal() principal: Principal, @Query() q: PageQuery, @RequestId() rid: string) {
    return this.rpc.call(ScannerRpc.list, { principal, limit: q.limit, cursor: q.cursor }, rid);
  }

  @Get('scanners/:scannerId')
  @ApiOperation({ summary: 'Get a scanner, as its latest version shows it' })
  @ApiReply('ScannerReply')
  get(@CurrentPrincipal() principal: Principal, @Param() p: ScannerIdParams, @RequestId() rid: string) {
    return this.rpc.call(ScannerRpc.get, { principal, scannerId: p.scannerId }, rid);
  }

  @Patch('scanners/:scannerId')
  @ApiOperation({
    summary: 'Update guardrail: a change of config or direction makes a new version; version.push makes it the latest',
  })
  @ApiReply('ScannerUpdateResponse')
  update(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ScannerIdParams,
    @Body() body: UpdateScannerRequest,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(ScannerRpc.update, { principal, scannerId: p.scannerId, body }, rid);
  }

  @Delete('scanners/:scannerId')
  @ApiOperation({ summary: 'Delete a scanner and its versions (409 while a project uses it)' })
  @ApiReply('MessageResponse')
  delete(@CurrentPrincipal() principal: Principal, @Param() p: ScannerIdParams, @RequestId() rid: string) {
    return this.rpc.call(ScannerRpc.delete, { principal, scannerId: p.scannerId }, rid);
  }

  @Get('scanners/:scannerId/versions')
  @ApiOperation({ summary: "List a scanner's versions, newest first (cursor pagination)" })
  @ApiReply('ScannerVersionPage')
  versions(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ScannerIdParams,
    @Query() q: PageQuery,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(
      ScannerRpc.listVersions,
      { principal, scannerId: p.scannerId, limit: q.limit, cursor: q.cursor },
      rid,
    );
  }

  @Get('scanners/:scannerId/versions/:versionId')
  @ApiOperation({ summary: 'Get a version (by id or name) with its config' })
  @ApiReply('ScannerVersionReply')
  version(@CurrentPrincipal() principal: Principal, @Param() p: ScannerVersionParams, @RequestId() rid: string) {
    return this.rpc.call(ScannerRpc.getVersion, { principal, scannerId: p.scannerId, versionRef: p.versionId }, rid);
  }

  @Patch('scanners/:scannerId/versions/:versionId')
  @ApiOperation({
    summary: 'Publish or unpublish a version, describe it, or push it to be the latest (also a rollback)',
  })
  @ApiReply('ScannerUpdateResponse')
  updateVersion(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ScannerVersionParams,
    @Body() body: UpdateScannerVersionRequest,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(
      ScannerRpc.updateVersion,
      { principal, scannerId: p.scannerId, versionRef: p.versionId, body },
      rid,
    );
  }

  @Post('scanners/:scannerId/versions/:versionId/evaluate')
  @HttpCode(200)
  @RouteConfig(CSV_BODY)
  @ApiConsumes('text/csv')
  @ApiBody({
    schema: { type: 'string', example: 'prompt,label\n"my ssn is 123-45-6789",true\nhello,false\n' },
    description: 'prompt,label rows (label true/1 = should block), at most 10 MB',
  })
  @ApiOperation({
    summary: 'Run a version over a labelled CSV and store accuracy, precision, recall, F1 and the confusion matrix',
  })
  @ApiReply('DatasetRunReply')
  evaluate(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ScannerVersionParams,
    @Body() csv: string,
    @RequestId() rid: string,
  ) {
    return evaluateDataset(this.rpc, { principal, scannerId: p.scannerId, versionRef: p.versionId }, csv, rid);
  }

  @Get('scanners/:scannerId/versions/:versionId/evaluations')
  @ApiOperation({ summary: "List the tenant's dataset runs of a version, newest first (cursor pagination)" })
  @ApiReply('DatasetRunPage')
  evaluations(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ScannerVersionParams,
    @Query() q: PageQuery,
    @RequestId() rid: string,
  ) {
    return this.rpc.call(
      ScannerRpc.listEvaluations,
      { principal, scannerId: p.scannerId, versionRef: p.versionId, limit: q.limit, cursor: q.cursor },
      rid,
    );
  }

  @Get('scanner-packages')
  @ApiOperation({
    summary: "List the scanner packages (all built in, from the vendor; attached under a project's config.packages)",
  })
  @ApiOkResponse({ type: PackagePageSchema })
  scannerPackages(@CurrentPrincipal() principal: Principal, @Query() q: PackagesQuery, @RequestId() rid: string) {
    return this.rpc.call(ScannerRpc.listPackages, { principal, limit: q.limit, cursor: q.cursor }, rid);
  }

  @Get('packages')
  @ApiOperation({ summary: 'List the scanner packages (alias of /scanner-packages)' })
  @ApiOkResponse({ type: PackagePageSchema })
  packages(@CurrentPrincipal() principal: Principal, @Query() q: PackagesQuery, @RequestId() rid: string) {
    return this.rpc.call(ScannerRpc.listPackages, { principal, limit: q.limit, cursor: q.cursor }, rid);
  }
}
