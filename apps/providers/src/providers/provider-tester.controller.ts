import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ProviderRpc, TestProviderCommand } from '@bastion/contracts';
import { answerLongCall, Handles } from '@bastion/messaging';
import { ProviderTesterService } from './provider-tester.service';

@Controller()
export class ProviderTesterController {
  constructor(private readonly tester: ProviderTesterService) {}

  @Handles(ProviderRpc.test)
  test(@Payload() cmd: TestProviderCommand) {
    return answerLongCall(() => this.tester.test(cmd));
  }
}
