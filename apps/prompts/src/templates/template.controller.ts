import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CreatePromptTemplateCommand, PromptRefCommand, PromptRpc, TemplateInputQuery } from '@bastion/contracts';
import { Handles } from '@bastion/messaging';
import { TemplateService } from './template.service';

@Controller()
export class TemplateController {
  constructor(private readonly templates: TemplateService) {}

  @Handles(PromptRpc.createTemplate)
  create(@Payload() cmd: CreatePromptTemplateCommand) {
    return this.templates.create(cmd);
  }

  @Handles(PromptRpc.getTemplate)
  get(@Payload() cmd: PromptRefCommand) {
    return this.templates.get(cmd);
  }

  @Handles(PromptRpc.templateInput)
  input(@Payload() q: TemplateInputQuery) {
    return this.templates.input(q);
  }
}
