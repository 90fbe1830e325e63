import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import {
  CreateProjectRequest,
  GetProjectQuery,
  GuardrailEntryChange,
  GuardrailEntryInput,
  PageQuery,
  type Principal,
  ProjectResponseSchema,
  ProjectRpc,
  type ProjectView,
  ProviderEntryChange,
  ProviderEntryInput,
  UpdateProjectRequest,
} from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/messaging';
import { RequestId } from '../http/request-id.decorator';
import { ApiReply } from '../http/api-reply';
import { ProjectEntryParams, ProjectIdParams, ProjectRefEntryParams, ProjectRefParams } from './project-params.dto';

type ProjectResponse = Promise<{ project: ProjectView }>;

/** Projects: fields, deployment status, attached scanners, packages and providers, and config history. */
@ApiTags('projects')
@ApiBearerAuth()
@Controller('backend/v1/projects')
export class ProjectsController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a project (draft unless deploymentStatus says live)' })
  @ApiReply('ProjectReply')
  create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateProjectRequest,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.create, { principal, body }, rid);
  }

  @Get()
  @ApiOperation({ summary: 'List projects, newest first (cursor pagination)' })
  @ApiReply('ProjectPage')
  list(@CurrentPrincipal() principal: Principal, @Query() q: PageQuery, @RequestId() rid: string) {
    return this.rpc.call(ProjectRpc.list, { principal, limit: q.limit, cursor: q.cursor }, rid);
  }

  @Get(':project')
  @ApiOperation({ summary: 'Get project: by id or name; configAt returns the config as it was then' })
  @ApiReply('ProjectReply')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectRefParams,
    @Query() q: GetProjectQuery,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.get, { principal, project: p.project, configAt: q.configAt }, rid);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update a project: fields, deployment status, or whole config lists (each change of config is kept)',
  })
  @ApiReply('ProjectReply')
  update(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectIdParams,
    @Body() body: UpdateProjectRequest,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.update, { principal, id: p.id, body }, rid);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a project and its config history' })
  @ApiReply('MessageResponse')
  delete(@CurrentPrincipal() principal: Principal, @Param() p: ProjectIdParams, @RequestId() rid: string) {
    return this.rpc.call(ProjectRpc.delete, { principal, id: p.id }, rid);
  }

  @Post(':id/scanners')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attach a scanner (pin a published version, or follow the latest)' })
  @ApiReply('ProjectReply')
  attachScanner(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectIdParams,
    @Body() entry: GuardrailEntryInput,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.attachGuardrail, { principal, id: p.id, list: 'scanners', entry }, rid);
  }

  @Patch(':id/scanners/:entryId')
  @ApiOperation({ summary: "Change an attached scanner's entry" })
  @ApiReply('ProjectReply')
  updateScanner(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectEntryParams,
    @Body() changes: GuardrailEntryChange,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(
      ProjectRpc.updateGuardrail,
      { principal, id: p.id, list: 'scanners', entryId: p.entryId, changes },
      rid,
    );
  }

  @Post(':id/scanners/:entryId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Attach a scanner by id; the entry starts disabled until PATCHed (unless the optional body enables it)',
  })
  @ApiBody({ type: GuardrailEntryChange, required: false })
  @ApiOkResponse({ type: ProjectResponseSchema })
  attachScannerById(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectRefEntryParams,
    @Body() guardrail: GuardrailEntryChange,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(
      ProjectRpc.attachById,
      { principal, id: p.id, list: 'scanners', entryId: p.entryId, guardrail },
      rid,
    );
  }

  @Delete(':id/scanners/:entryId')
  @ApiOperation({ summary: 'Detach a scanner (project by id or name)' })
  @ApiOkResponse({ type: ProjectResponseSchema })
  detachScanner(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectRefEntryParams,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.detach, { principal, id: p.id, list: 'scanners', entryId: p.entryId }, rid);
  }

  @Post(':id/packages')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attach a built-in package' })
  @ApiReply('ProjectReply')
  attachPackage(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectIdParams,
    @Body() entry: GuardrailEntryInput,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.attachGuardrail, { principal, id: p.id, list: 'packages', entry }, rid);
  }

  @Patch(':id/packages/:entryId')
  @ApiOperation({ summary: "Change an attached package's entry" })
  @ApiReply('ProjectReply')
  updatePackage(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectEntryParams,
    @Body() changes: GuardrailEntryChange,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(
      ProjectRpc.updateGuardrail,
      { principal, id: p.id, list: 'packages', entryId: p.entryId, changes },
      rid,
    );
  }

  @Post(':id/packages/:entryId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Attach a package by id (alias of .../scanner-packages/{packageId}); starts disabled until PATCHed',
  })
  @ApiBody({ type: GuardrailEntryChange, required: false })
  @ApiOkResponse({ type: ProjectResponseSchema })
  attachPackageById(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectRefEntryParams,
    @Body() guardrail: GuardrailEntryChange,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(
      ProjectRpc.attachById,
      { principal, id: p.id, list: 'packages', entryId: p.entryId, guardrail },
      rid,
    );
  }

  @Delete(':id/packages/:entryId')
  @ApiOperation({ summary: 'Detach a package (project by id or name)' })
  @ApiOkResponse({ type: ProjectResponseSchema })
  detachPackage(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectRefEntryParams,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.detach, { principal, id: p.id, list: 'packages', entryId: p.entryId }, rid);
  }

  @Post(':id/scanner-packages/:entryId')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Attach a scanner package by id; the entry starts disabled until PATCHed (unless the optional body enables it)',
  })
  @ApiBody({ type: GuardrailEntryChange, required: false })
  @ApiOkResponse({ type: ProjectResponseSchema })
  attachScannerPackage(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectRefEntryParams,
    @Body() guardrail: GuardrailEntryChange,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(
      ProjectRpc.attachById,
      { principal, id: p.id, list: 'packages', entryId: p.entryId, guardrail },
      rid,
    );
  }

  @Patch(':id/scanner-packages/:entryId')
  @ApiOperation({ summary: "Change an attached scanner package's entry (alias of .../packages/{entryId})" })
  @ApiOkResponse({ type: ProjectResponseSchema })
  updateScannerPackage(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectEntryParams,
    @Body() changes: GuardrailEntryChange,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(
      ProjectRpc.updateGuardrail,
      { principal, id: p.id, list: 'packages', entryId: p.entryId, changes },
      rid,
    );
  }

  @Delete(':id/scanner-packages/:entryId')
  @ApiOperation({ summary: 'Detach a scanner package (project by id or name)' })
  @ApiOkResponse({ type: ProjectResponseSchema })
  detachScannerPackage(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectRefEntryParams,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.detach, { principal, id: p.id, list: 'packages', entryId: p.entryId }, rid);
  }

  @Post(':id/providers')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attach a provider (its id is checked as a UUID only)' })
  @ApiReply('ProjectReply')
  attachProvider(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectIdParams,
    @Body() entry: ProviderEntryInput,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.attachProvider, { principal, id: p.id, entry }, rid);
  }

  @Patch(':id/providers/:entryId')
  @ApiOperation({ summary: "Change an attached provider's entry" })
  @ApiReply('ProjectReply')
  updateProvider(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectEntryParams,
    @Body() changes: ProviderEntryChange,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.updateProvider, { principal, id: p.id, entryId: p.entryId, changes }, rid);
  }

  @Post(':id/providers/:entryId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Attach a provider by id; the entry starts disabled until PATCHed (unless the optional body enables it)',
  })
  @ApiBody({ type: ProviderEntryChange, required: false })
  @ApiOkResponse({ type: ProjectResponseSchema })
  attachProviderById(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectRefEntryParams,
    @Body() provider: ProviderEntryChange,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(
      ProjectRpc.attachById,
      { principal, id: p.id, list: 'providers', entryId: p.entryId, provider },
      rid,
    );
  }

  @Delete(':id/providers/:entryId')
  @ApiOperation({ summary: 'Detach a provider (project by id or name)' })
  @ApiOkResponse({ type: ProjectResponseSchema })
  detachProvider(
    @CurrentPrincipal() principal: Principal,
    @Param() p: ProjectRefEntryParams,
    @RequestId() rid: string,
  ): ProjectResponse {
    return this.rpc.call(ProjectRpc.detach, { principal, id: p.id, list: 'providers', entryId: p.entryId }, rid);
  }
}

/** `GET /backend/v1/project`: the tenant's global project. */
@ApiTags('projects')
@ApiBearerAuth()
@Controller('backend/v1/project')
export class GlobalProjectController {
  constructor(private readonly rpc: NatsRpcClient) {}

  @Get()
  @ApiOperation({
    summary: "The tenant's global project (`default`, made on first use); a project-scoped token gets its own project",
  })
  @ApiOkResponse({ type: ProjectResponseSchema })
  get(@CurrentPrincipal() principal: Principal, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.global, { principal }, rid);
  }
}
