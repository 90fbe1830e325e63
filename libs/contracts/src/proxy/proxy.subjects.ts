/** Request-reply subjects of the message proxy (queue group `message-proxy`). */
export const ProxySubjects = {
  messages: 'proxy.messages.create.v1',
  /** Streams: many replies per request, the last one marked disposed. */
  messagesStream: 'proxy.messages.stream.v1',
  /** The OpenAI Chat Completions route (MessagesCommand with a Chat Completions body). */
  chat: 'proxy.chat.create.v1',
  chatStream: 'proxy.chat.stream.v1',
  sendPrompt: 'proxy.prompt.send.v1',
  scan: 'proxy.scan.create.v1',
  health: 'proxy.health.check.v1',
} as const;

export const PROXY_QUEUE = 'message-proxy';
