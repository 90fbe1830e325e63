import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CloudInitCommand,
  CreateTokenCommand,
  DeleteTokenCommand,
  GetTokenCommand,
  ListTokensQueryCommand,
  ReplaceTokenCommand,
  SetTokenStateCommand,
  TokenRpc,
} from '@bastion/contracts';
import { Handles } from '@bastion/messaging';
import { TokenService } from './token.service';

@Controller()
export class TokenController {
  constructor(private readonly tokens: TokenService) {}

  @Handles(TokenRpc.create)
  create(@Payload() cmd: CreateTokenCommand) {
    return this.tokens.create(cmd);
  }

  @Handles(TokenRpc.replace)
  replace(@Payload() cmd: ReplaceTokenCommand) {
    return this.tokens.replace(cmd);
  }

  @Handles(TokenRpc.list)
  list(@Payload() cmd: ListTokensQueryCommand) {
    return this.tokens.list(cmd);
  }

  @Handles(TokenRpc.get)
  get(@Payload() cmd: GetTokenCommand) {
    return this.tokens.get(cmd);
  }

  @Handles(TokenRpc.delete)
  delete(@Payload() cmd: DeleteTokenCommand) {
    return this.tokens.delete(cmd);
  }

  @Handles(TokenRpc.setState)
  setState(@Payload() cmd: SetTokenStateCommand) {
    return this.tokens.setState(cmd);
  }

  @Handles(TokenRpc.cloudInit)
  cloudInit(@Payload() cmd: CloudInitCommand) {
    return this.tokens.cloudInit(cmd);
  }
}
