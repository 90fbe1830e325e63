import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CloudInitCommand,
  CreateTokenCommand,
  DeleteTokenCommand,
  GetTokenCommand,
  ListTokensQueryCommand,
  ReplaceTokenCommand,
  SetTokenStateCommand,
  TokenSubjects,
} from '@bastion/contracts';
import { TokenService } from './token.service';

@Controller()
export class TokenController {
  constructor(private readonly tokens: TokenService) {}

  @MessagePattern(TokenSubjects.create)
  create(@Payload() cmd: CreateTokenCommand) {
    return this.tokens.create(cmd);
  }

  @MessagePattern(TokenSubjects.replace)
  replace(@Payload() cmd: ReplaceTokenCommand) {
    return this.tokens.replace(cmd);
  }

  @MessagePattern(TokenSubjects.list)
  list(@Payload() cmd: ListTokensQueryCommand) {
    return this.tokens.list(cmd);
  }

  @MessagePattern(TokenSubjects.get)
  get(@Payload() cmd: GetTokenCommand) {
    return this.tokens.get(cmd);
  }

  @MessagePattern(TokenSubjects.delete)
  delete(@Payload() cmd: DeleteTokenCommand) {
    return this.tokens.delete(cmd);
  }

  @MessagePattern(TokenSubjects.setState)
  setState(@Payload() cmd: SetTokenStateCommand) {
    return this.tokens.setState(cmd);
  }

  @MessagePattern(TokenSubjects.cloudInit)
  cloudInit(@Payload() cmd: CloudInitCommand) {
    return this.tokens.cloudInit(cmd);
  }
}
