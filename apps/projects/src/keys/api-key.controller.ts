import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ApiKeyIdCommand, ApiKeySubjects, CreateApiKeyCommand, ListApiKeysCommand, ResolveApiKeyQuery } from '@bastion/contracts';
import { ApiKeyService } from './api-key.service';

@Controller()
export class ApiKeyController {
  constructor(private readonly keys: ApiKeyService) {}

  @MessagePattern(ApiKeySubjects.create)
  create(@Payload() cmd: CreateApiKeyCommand) {
    return this.keys.create(cmd);
  }

  @MessagePattern(ApiKeySubjects.list)
  list(@Payload() cmd: ListApiKeysCommand) {
    return this.keys.list(cmd);
  }

  @MessagePattern(ApiKeySubjects.get)
  get(@Payload() cmd: ApiKeyIdCommand) {
    return this.keys.get(cmd);
  }

  @MessagePattern(ApiKeySubjects.delete)
  delete(@Payload() cmd: ApiKeyIdCommand) {
    return this.keys.delete(cmd);
  }

  @MessagePattern(ApiKeySubjects.resolve)
  resolve(@Payload() query: ResolveApiKeyQuery) {
    return this.keys.resolve(query);
  }
}
