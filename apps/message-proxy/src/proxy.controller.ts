import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { MessagesCommand, ProxySubjects, ScanCommand, SendPromptCommand } from '@bastion/contracts';
import { StreamLiveness } from './liveness/stream-liveness';
import { MessagesService } from './messages/messages.service';
import { PromptApiService } from './messages/prompt-api.service';

@Controller()
export class ProxyController {
  constructor(
    private readonly messages: MessagesService,
    private readonly prompts: PromptApiService,
    private readonly liveness: StreamLiveness,
  ) {}

  @MessagePattern(ProxySubjects.messages)
  create(@Payload() cmd: MessagesCommand) {
    return this.messages.create(cmd);
  }

  @MessagePattern(ProxySubjects.messagesStream)
  stream(@Payload() cmd: MessagesCommand) {
    return this.liveness.watch(cmd.cancelSubject, this.messages.stream(cmd));
  }

  @MessagePattern(ProxySubjects.sendPrompt)
  send(@Payload() cmd: SendPromptCommand) {
    return this.prompts.send(cmd);
  }

  @MessagePattern(ProxySubjects.scan)
  scan(@Payload() cmd: ScanCommand) {
    return this.prompts.scan(cmd);
  }
}
