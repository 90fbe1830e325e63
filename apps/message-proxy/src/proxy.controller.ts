import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  MessagesCommand,
  ProxyBulkRpc,
  ProxyBulkStreams,
  ProxyRpc,
  ProxyStreams,
  ScanCommand,
  SendPromptCommand,
} from '@bastion/contracts';
import { answerLongCall, Handles } from '@bastion/messaging';
import { StreamLiveness } from './liveness/stream-liveness';
import { MessagesService } from './messages/messages.service';
import { PromptApiService } from './messages/prompt-api.service';
import { OpenAiChatService } from './openai/openai-chat.service';

/** Each request that carries a client's text is answered on its bulk-lane twin too (see PROXY_LANE). */
@Controller()
export class ProxyController {
  constructor(
    private readonly messages: MessagesService,
    private readonly prompts: PromptApiService,
    private readonly chat: OpenAiChatService,
    private readonly liveness: StreamLiveness,
  ) {}

  @Handles(ProxyRpc.messages, ProxyBulkRpc.messages)
  create(@Payload() cmd: MessagesCommand) {
    return answerLongCall(() => this.messages.create(cmd));
  }

  @Handles(ProxyStreams.messages, ProxyBulkStreams.messages)
  stream(@Payload() cmd: MessagesCommand) {
    return this.liveness.watch(cmd.cancelSubject, this.messages.stream(cmd));
  }

  @Handles(ProxyRpc.chat, ProxyBulkRpc.chat)
  chatCompletion(@Payload() cmd: MessagesCommand) {
    return answerLongCall(() => this.chat.create(cmd));
  }

  @Handles(ProxyStreams.chat, ProxyBulkStreams.chat)
  chatStream(@Payload() cmd: MessagesCommand) {
    return this.liveness.watch(cmd.cancelSubject, this.chat.stream(cmd));
  }

  @Handles(ProxyRpc.sendPrompt, ProxyBulkRpc.sendPrompt)
  send(@Payload() cmd: SendPromptCommand) {
    return answerLongCall(() => this.prompts.send(cmd));
  }

  @Handles(ProxyRpc.scan, ProxyBulkRpc.scan)
  scan(@Payload() cmd: ScanCommand) {
    return this.prompts.scan(cmd);
  }
}
