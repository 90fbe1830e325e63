import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { MessagesCommand, ProxySubjects, ScanCommand, SendPromptCommand } from '@bastion/contracts';
import { MessagesService } from './messages/messages.service';
import { PromptApiService } from './messages/prompt-api.service';
import { OpenAiChatService } from './openai/openai-chat.service';

@Controller()
export class ProxyController {
  constructor(
    private readonly messages: MessagesService,
    private readonly prompts: PromptApiService,
    private readonly chat: OpenAiChatService,
  ) {}

  @MessagePattern(ProxySubjects.messages)
  create(@Payload() cmd: MessagesCommand) {
    return this.messages.create(cmd);
  }

  @MessagePattern(ProxySubjects.messagesStream)
  stream(@Payload() cmd: MessagesCommand) {
    return this.messages.stream(cmd);
  }

  @MessagePattern(ProxySubjects.chat)
  chatCompletion(@Payload() cmd: MessagesCommand) {
    return this.chat.create(cmd);
  }

  @MessagePattern(ProxySubjects.chatStream)
  chatStream(@Payload() cmd: MessagesCommand) {
    return this.chat.stream(cmd);
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
