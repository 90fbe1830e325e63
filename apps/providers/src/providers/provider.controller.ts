import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CreateProviderCommand,
  ListProvidersCommand,
  ProviderRefCommand,
  ProviderRuntimeQuery,
  ProviderSubjects,
  SystemProviderQuery,
  UpdateProviderCommand,
} from '@bastion/contracts';
import { ProviderService } from './provider.service';

@Controller()
export class ProviderController {
  constructor(private readonly providers: ProviderService) {}

  @MessagePattern(ProviderSubjects.listSystem)
  listSystem(@Payload() q: SystemProviderQuery) {
    return this.providers.listSystem(q.principal);
  }

  @MessagePattern(ProviderSubjects.getSystem)
  getSystem(@Payload() q: ProviderRefCommand) {
    return this.providers.getSystem(q.principal, q.ref);
  }

  @MessagePattern(ProviderSubjects.create)
  create(@Payload() cmd: CreateProviderCommand) {
    return this.providers.create(cmd);
  }

  @MessagePattern(ProviderSubjects.list)
  list(@Payload() cmd: ListProvidersCommand) {
    return this.providers.list(cmd);
  }

  @MessagePattern(ProviderSubjects.get)
  get(@Payload() cmd: ProviderRefCommand) {
    return this.providers.get(cmd);
  }

  @MessagePattern(ProviderSubjects.update)
  update(@Payload() cmd: UpdateProviderCommand) {
    return this.providers.update(cmd);
  }

  @MessagePattern(ProviderSubjects.delete)
  delete(@Payload() cmd: ProviderRefCommand) {
    return this.providers.delete(cmd);
  }

  @MessagePattern(ProviderSubjects.runtime)
  runtime(@Payload() q: ProviderRuntimeQuery) {
    return this.providers.runtime(q);
  }
}
