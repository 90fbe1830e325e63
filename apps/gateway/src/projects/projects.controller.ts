import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '@bastion/auth';
import {
  CreateProjectRequest,
  GetProjectQuery,
  GuardrailEntryChange,
  GuardrailEntryInput,
  PageQuery,
  type Principal,
  ProjectRpc,
  type ProjectView,
  ProviderEntryChange,
  ProviderEntryInput,
  UpdateProjectRequest,
} from '@bastion/contracts';
import { NatsRpcClient } from '@bastion/platform';
import { RequestId } from '../http/request-id.decorator';
import { ProjectEntryParams, ProjectIdParams, ProjectRefParams } from './project-params.dto';
import { ApiReply } from '../http/api-reply';

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
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateProjectRequest, @RequestId() rid: string): ProjectResponse {
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
  get(@CurrentPrincipal() principal: Principal, @Param() p: ProjectRefParams, @Query() q: GetProjectQuery, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.get, { principal, project: p.project, configAt: q.configAt }, rid);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update a project: fields, deployment status, or whole config lists (each change of config is kept)' })
  @ApiReply('ProjectReply')
  update(@CurrentPrincipal() principal: Principal, @Param() p: ProjectIdParams, @Body() body: UpdateProjectRequest, @RequestId() rid: string): ProjectResponse {
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
  attachScanner(@CurrentPrincipal() principal: Principal, @Param() p: ProjectIdParams, @Body() entry: GuardrailEntryInput, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.attachGuardrail, { principal, id: p.id, list: 'scanners', entry }, rid);
  }

  @Patch(':id/scanners/:entryId')
  @ApiOperation({ summary: "Change an attached scanner's entry" })
  @ApiReply('ProjectReply')
  updateScanner(@CurrentPrincipal() principal: Principal, @Param() p: ProjectEntryParams, @Body() changes: GuardrailEntryChange, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.updateGuardrail, { principal, id: p.id, list: 'scanners', entryId: p.entryId, changes }, rid);
  }

  @Delete(':id/scanners/:entryId')
  @ApiOperation({ summary: 'Detach a scanner' })
  @ApiReply('ProjectReply')
  detachScanner(@CurrentPrincipal() principal: Principal, @Param() p: ProjectEntryParams, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.detach, { principal, id: p.id, list: 'scanners', entryId: p.entryId }, rid);
  }

  @Post(':id/packages')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attach a built-in package' })
  @ApiReply('ProjectReply')
  attachPackage(@CurrentPrincipal() principal: Principal, @Param() p: ProjectIdParams, @Body() entry: GuardrailEntryInput, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.attachGuardrail, { principal, id: p.id, list: 'packages', entry }, rid);
  }

  @Patch(':id/packages/:entryId')
  @ApiOperation({ summary: "Change an attached package's entry" })
  @ApiReply('ProjectReply')
  updatePackage(@CurrentPrincipal() principal: Principal, @Param() p: ProjectEntryParams, @Body() changes: GuardrailEntryChange, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.updateGuardrail, { principal, id: p.id, list: 'packages', entryId: p.entryId, changes }, rid);
  }

  @Delete(':id/packages/:entryId')
  @ApiOperation({ summary: 'Detach a package' })
  @ApiReply('ProjectReply')
  detachPackage(@CurrentPrincipal() principal: Principal, @Param() p: ProjectEntryParams, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.detach, { principal, id: p.id, list: 'packages', entryId: p.entryId }, rid);
  }

  @Post(':id/providers')
  @HttpCode(200)
  @ApiOperation({ summary: 'Attach a provider (its id is checked as a UUID only)' })
  @ApiReply('ProjectReply')
  attachProvider(@CurrentPrincipal() principal: Principal, @Param() p: ProjectIdParams, @Body() entry: ProviderEntryInput, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.attachProvider, { principal, id: p.id, entry }, rid);
  }

  @Patch(':id/providers/:entryId')
  @ApiOperation({ summary: "Change an attached provider's entry" })
  @ApiReply('ProjectReply')
  updateProvider(@CurrentPrincipal() principal: Principal, @Param() p: ProjectEntryParams, @Body() changes: ProviderEntryChange, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.updateProvider, { principal, id: p.id, entryId: p.entryId, changes }, rid);
  }

  @Delete(':id/providers/:entryId')
  @ApiOperation({ summary: 'Detach a provider' })
  @ApiReply('ProjectReply')
  detachProvider(@CurrentPrincipal() principal: Principal, @Param() p: ProjectEntryParams, @RequestId() rid: string): ProjectResponse {
    return this.rpc.call(ProjectRpc.detach, { principal, id: p.id, list: 'providers', entryId: p.entryId }, rid);
  }
}
