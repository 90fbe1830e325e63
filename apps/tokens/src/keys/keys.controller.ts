import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { TokenSubjects } from '@bastion/contracts';
import { SigningKeyService } from './signing-key.service';

@Controller()
export class KeysController {
  constructor(private readonly keys: SigningKeyService) {}

  @MessagePattern(TokenSubjects.jwks)
  jwks() {
    return this.keys.jwks();
  }
}
