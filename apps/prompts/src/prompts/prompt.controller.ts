import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { ListPromptsCommand, PromptRefCommand, PromptRpc } from '@bastion/contracts';
import { Handles } from '@bastion/messaging';
import { PromptService } from './prompt.service';

@Controller()
export class PromptController {
  constructor(private readonly prompts: PromptService) {}

  @Handles(PromptRpc.list)
  list(@Payload() cmd: ListPromptsCommand) {
    return this.prompts.list(cmd);
  }

  @Handles(PromptRpc.getScan)
  getScan(@Payload() cmd: PromptRefCommand) {
    return this.prompts.getScan(cmd);
  }

  @Handles(PromptRpc.get)
  get(@Payload() cmd: PromptRefCommand) {
    return this.prompts.get(cmd);
  }
}
