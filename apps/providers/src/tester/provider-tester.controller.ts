import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ProviderSubjects, TestProviderCommand } from '@bastion/contracts';
import { ProviderTesterService } from './provider-tester.service';

@Controller()
export class ProviderTesterController {
  constructor(private readonly tester: ProviderTesterService) {}

  @MessagePattern(ProviderSubjects.test)
  test(@Payload() cmd: TestProviderCommand) {
    return this.tester.test(cmd);
  }
}
