import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
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
  ProjectRuntimeQuery,
  ProjectSubjects,
  UpdateGuardrailCommand,
  UpdateProjectCommand,
  UpdateProviderEntryCommand,
} from '@bastion/contracts';
import { ProjectService } from './project.service';

@Controller()
export class ProjectController {
  constructor(private readonly projects: ProjectService) {}

  @MessagePattern(ProjectSubjects.create)
  create(@Payload() cmd: CreateProjectCommand) {
    return this.projects.create(cmd);
  }

  @MessagePattern(ProjectSubjects.list)
  list(@Payload() cmd: ListProjectsCommand) {
    return this.projects.list(cmd);
  }

  @MessagePattern(ProjectSubjects.get)
  get(@Payload() cmd: GetProjectCommand) {
    return this.projects.get(cmd);
  }

  @MessagePattern(ProjectSubjects.update)
  update(@Payload() cmd: UpdateProjectCommand) {
    return this.projects.update(cmd);
  }

  @MessagePattern(ProjectSubjects.delete)
  delete(@Payload() cmd: ProjectIdCommand) {
    return this.projects.delete(cmd);
  }

  @MessagePattern(ProjectSubjects.attachGuardrail)
  attachGuardrail(@Payload() cmd: AttachGuardrailCommand) {
    return this.projects.attachGuardrail(cmd);
  }

  @MessagePattern(ProjectSubjects.updateGuardrail)
  updateGuardrail(@Payload() cmd: UpdateGuardrailCommand) {
    return this.projects.updateGuardrail(cmd);
  }

  @MessagePattern(ProjectSubjects.attachProvider)
  attachProvider(@Payload() cmd: AttachProviderCommand) {
    return this.projects.attachProvider(cmd);
  }

  @MessagePattern(ProjectSubjects.updateProvider)
  updateProvider(@Payload() cmd: UpdateProviderEntryCommand) {
    return this.projects.updateProvider(cmd);
  }

  @MessagePattern(ProjectSubjects.detach)
  detach(@Payload() cmd: DetachCommand) {
    return this.projects.detach(cmd);
  }

  @MessagePattern(ProjectSubjects.attachById)
  attachById(@Payload() cmd: AttachByIdCommand) {
    return this.projects.attachById(cmd);
  }

  @MessagePattern(ProjectSubjects.global)
  global(@Payload() cmd: GlobalProjectCommand) {
    return this.projects.global(cmd);
  }

  @MessagePattern(ProjectSubjects.runtime)
  runtime(@Payload() query: ProjectRuntimeQuery) {
    return this.projects.runtime(query);
  }
}
