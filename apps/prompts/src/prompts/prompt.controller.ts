import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ListPromptsCommand, PromptRefCommand, PromptSubjects } from '@bastion/contracts';
import { PromptService } from './prompt.service';

@Controller()
export class PromptController {
  constructor(private readonly prompts: PromptService) {}

  @MessagePattern(PromptSubjects.list)
  list(@Payload() cmd: ListPromptsCommand) {
    return this.prompts.list(cmd);
  }

  @MessagePattern(PromptSubjects.getScan)
  getScan(@Payload() cmd: PromptRefCommand) {
    return this.prompts.getScan(cmd);
  }

  @MessagePattern(PromptSubjects.get)
  get(@Payload() cmd: PromptRefCommand) {
    return this.prompts.get(cmd);
  }
}
