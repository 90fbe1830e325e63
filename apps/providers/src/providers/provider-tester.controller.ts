import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ProviderRpc, TestProviderCommand } from '@bastion/contracts';
import { Handles } from '@bastion/messaging';
import { ProviderTesterService } from './provider-tester.service';

@Controller()
export class ProviderTesterController {
  constructor(private readonly tester: ProviderTesterService) {}

  @Handles(ProviderRpc.test)
  test(@Payload() cmd: TestProviderCommand) {
    return this.tester.test(cmd);
  }
}
