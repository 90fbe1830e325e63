import { Controller } from '@nestjs/common';
import { TokenRpc } from '@bastion/contracts';
import { Handles } from '@bastion/messaging';
import { SigningKeyService } from './signing-key.service';

@Controller()
export class KeysController {
  constructor(private readonly keys: SigningKeyService) {}

  @Handles(TokenRpc.jwks)
  jwks() {
    return this.keys.jwks();
  }
}
