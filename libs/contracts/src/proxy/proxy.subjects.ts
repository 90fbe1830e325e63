/** Request-reply subjects of the message proxy (queue group `message-proxy`). */
export const ProxySubjects = {
  messages: 'proxy.messages.create.v2',
  /** Streams: many replies per request, the last one marked disposed. */
  messagesStream: 'proxy.messages.stream.v2',
  /** The OpenAI Chat Completions route (MessagesCommand with a Chat Completions body). */
  chat: 'proxy.chat.create.v2',
  chatStream: 'proxy.chat.stream.v2',
  sendPrompt: 'proxy.prompt.send.v1',
  scan: 'proxy.scan.create.v1',
  health: 'proxy.health.check.v1',
} as const;

export const PROXY_QUEUE = 'message-proxy';

/**
 * The bulk lane: the same requests for large texts, on subjects of their own (`proxy.bulk.*`), so
 * that proxies which take only bulk work (`PROXY_LANE=bulk`) parse, scan and record a megabyte
 * prompt on their own event loop, not on the one that answers everyone's short requests.
 */
export const PROXY_BULK_PREFIX = 'proxy.bulk.';

/** A proxy subject's bulk-lane twin: `proxy.messages.create.v2` -> `proxy.bulk.messages.create.v2`. */
export function bulkSubject(subject: string): string {
  return `${PROXY_BULK_PREFIX}${subject.slice('proxy.'.length)}`;
}

/** The message proxy publishes every finished prompt here (JetStream stream `PROXY`). */
export const ProxyEvents = {
  promptRecorded: 'proxy.prompt.recorded.v1',
} as const;

export const PROXY_STREAM = 'PROXY';

/**
 * The stream of prompt records. Its writer (the message proxy) and its reader (the prompts service)
 * both declare it with this one spec, so neither undoes the other's `ensureStream`.
 */
export const PROXY_STREAM_SPEC: { name: string; subjects: string[] } = {
  name: PROXY_STREAM,
  subjects: [ProxyEvents.promptRecorded],
};

/** JetStream key-value bucket where the message proxy's replicas share each provider's limits. */
export const PROVIDER_LIMITS_BUCKET = 'provider-limits';

/** Prefix of the per-stream cancel signals (`<prefix>.<uuid>`, and `<prefix>.<uuid>.alive` for heartbeats). */
export const PROXY_CANCEL_PREFIX = 'proxy.cancel';
