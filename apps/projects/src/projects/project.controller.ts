import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AttachByIdCommand,
  AttachGuardrailCommand,
  AttachProviderCommand,
  CreateProjectCommand,
  DetachCommand,
  GlobalProjectCommand,
  GetProjectCommand,
  ListProjectsCommand,
  ProjectIdCommand,
  ProjectRpc,
  ProjectRuntimeQuery,
  UpdateGuardrailCommand,
  UpdateProjectCommand,
  UpdateProviderEntryCommand,
} from '@bastion/contracts';
import { Handles } from '@bastion/messaging';
import { ProjectService } from './project.service';

@Controller()
export class ProjectController {
  constructor(private readonly projects: ProjectService) {}

  @Handles(ProjectRpc.create)
  create(@Payload() cmd: CreateProjectCommand) {
    return this.projects.create(cmd);
  }

  @Handles(ProjectRpc.list)
  list(@Payload() cmd: ListProjectsCommand) {
    return this.projects.list(cmd);
  }

  @Handles(ProjectRpc.get)
  get(@Payload() cmd: GetProjectCommand) {
    return this.projects.get(cmd);
  }

  @Handles(ProjectRpc.update)
  update(@Payload() cmd: UpdateProjectCommand) {
    return this.projects.update(cmd);
  }

  @Handles(ProjectRpc.delete)
  delete(@Payload() cmd: ProjectIdCommand) {
    return this.projects.delete(cmd);
  }

  @Handles(ProjectRpc.attachGuardrail)
  attachGuardrail(@Payload() cmd: AttachGuardrailCommand) {
    return this.projects.attachGuardrail(cmd);
  }

  @Handles(ProjectRpc.updateGuardrail)
  updateGuardrail(@Payload() cmd: UpdateGuardrailCommand) {
    return this.projects.updateGuardrail(cmd);
  }

  @Handles(ProjectRpc.attachProvider)
  attachProvider(@Payload() cmd: AttachProviderCommand) {
    return this.projects.attachProvider(cmd);
  }

  @Handles(ProjectRpc.updateProvider)
  updateProvider(@Payload() cmd: UpdateProviderEntryCommand) {
    return this.projects.updateProvider(cmd);
  }

  @Handles(ProjectRpc.detach)
  detach(@Payload() cmd: DetachCommand) {
    return this.projects.detach(cmd);
  }

  @Handles(ProjectRpc.attachById)
  attachById(@Payload() cmd: AttachByIdCommand) {
    return this.projects.attachById(cmd);
  }

  @Handles(ProjectRpc.global)
  global(@Payload() cmd: GlobalProjectCommand) {
    return this.projects.global(cmd);
  }

  @Handles(ProjectRpc.runtime)
  runtime(@Payload() query: ProjectRuntimeQuery) {
    return this.projects.runtime(query);
  }
}
