import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreatePromptTemplateCommand, PromptRefCommand, PromptSubjects, TemplateInputQuery } from '@bastion/contracts';
import { TemplateService } from './template.service';

@Controller()
export class TemplateController {
  constructor(private readonly templates: TemplateService) {}

  @MessagePattern(PromptSubjects.createTemplate)
  create(@Payload() cmd: CreatePromptTemplateCommand) {
    return this.templates.create(cmd);
  }

  @MessagePattern(PromptSubjects.getTemplate)
  get(@Payload() cmd: PromptRefCommand) {
    return this.templates.get(cmd);
  }

  @MessagePattern(PromptSubjects.templateInput)
  input(@Payload() q: TemplateInputQuery) {
    return this.templates.input(q);
  }
}
