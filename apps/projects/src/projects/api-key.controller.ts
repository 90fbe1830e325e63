import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  ApiKeyIdCommand,
  ApiKeyRpc,
  CreateApiKeyCommand,
  ListApiKeysCommand,
  ResolveApiKeyQuery,
} from '@bastion/contracts';
import { Handles } from '@bastion/messaging';
import { ApiKeyService } from './api-key.service';

@Controller()
export class ApiKeyController {
  constructor(private readonly keys: ApiKeyService) {}

  @Handles(ApiKeyRpc.create)
  create(@Payload() cmd: CreateApiKeyCommand) {
    return this.keys.create(cmd);
  }

  @Handles(ApiKeyRpc.list)
  list(@Payload() cmd: ListApiKeysCommand) {
    return this.keys.list(cmd);
  }

  @Handles(ApiKeyRpc.get)
  get(@Payload() cmd: ApiKeyIdCommand) {
    return this.keys.get(cmd);
  }

  @Handles(ApiKeyRpc.delete)
  delete(@Payload() cmd: ApiKeyIdCommand) {
    return this.keys.delete(cmd);
  }

  @Handles(ApiKeyRpc.resolve)
  resolve(@Payload() query: ResolveApiKeyQuery) {
    return this.keys.resolve(query);
  }
}
