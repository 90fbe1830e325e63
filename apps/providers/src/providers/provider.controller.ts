import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CreateProviderCommand,
  ListProvidersCommand,
  ProviderRefCommand,
  ProviderRpc,
  ProviderRuntimeQuery,
  SystemProviderQuery,
  UpdateProviderCommand,
} from '@bastion/contracts';
import { answerLongCall, Handles } from '@bastion/messaging';
import { ProviderService } from './provider.service';

@Controller()
export class ProviderController {
  constructor(private readonly providers: ProviderService) {}

  @Handles(ProviderRpc.listSystem)
  listSystem(@Payload() q: SystemProviderQuery) {
    return this.providers.listSystem(q.principal);
  }

  @Handles(ProviderRpc.getSystem)
  getSystem(@Payload() q: ProviderRefCommand) {
    return this.providers.getSystem(q.principal, q.ref);
  }

  @Handles(ProviderRpc.create)
  create(@Payload() cmd: CreateProviderCommand) {
    return answerLongCall(() => this.providers.create(cmd));
  }

  @Handles(ProviderRpc.list)
  list(@Payload() cmd: ListProvidersCommand) {
    return this.providers.list(cmd);
  }

  @Handles(ProviderRpc.get)
  get(@Payload() cmd: ProviderRefCommand) {
    return this.providers.get(cmd);
  }

  @Handles(ProviderRpc.update)
  update(@Payload() cmd: UpdateProviderCommand) {
    return answerLongCall(() => this.providers.update(cmd));
  }

  @Handles(ProviderRpc.delete)
  delete(@Payload() cmd: ProviderRefCommand) {
    return this.providers.delete(cmd);
  }

  @Handles(ProviderRpc.runtime)
  runtime(@Payload() q: ProviderRuntimeQuery) {
    return this.providers.runtime(q);
  }
}
