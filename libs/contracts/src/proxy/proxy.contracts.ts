import { declareEvent, declareLongCall, declareRpc, declareSignal, declareStream } from '../messaging/contract';
import type { ServiceHealthView } from '../messaging/health';
import { PromptRecordedEvent } from '../prompts/prompt-record.event';
import type { PromptView, ScanView } from '../prompts/prompt.views';
import { MessagesCommand, ScanCommand, SendPromptCommand } from './proxy.dto';
import { bulkSubject, PROXY_CANCEL_PREFIX, PROXY_STREAM, ProxyEvents, ProxySubjects } from './proxy.subjects';

/** A guarded exchange answered in one reply: the provider's status and body, and the prompt it recorded. */
export interface MessagesReply {
  status: number;
  /** The body the client receives, as JSON text (the gateway sends it as it is). */
  body: string;
  promptId: string;
  /** Milliseconds the proxy spent scanning, waiting on the provider and storing the record (Server-Timing). */
  timing?: ExchangeTiming;
}

export interface ExchangeTiming {
  guard?: number;
  upstream?: number;
  record?: number;
}

/**
 * What a streamed exchange sends back over NATS, one reply each: the head first, then data. A data
 * frame carries whole events of the client's stream, as many as were ready together (the gateway
 * writes it as it is). `ping` frames come every STREAM_HEARTBEAT_MS from the start, so the gateway
 * can tell a silent model from a proxy that is gone.
 */
export type StreamFrame =
  | { kind: 'head'; status: number; contentType: string; promptId: string; timing?: ExchangeTiming }
  | { kind: 'data'; data: string }
  | { kind: 'ping' };

/** How often the proxy sends a ping frame, and the gateway a heartbeat on `<cancelSubject>.alive` (ms). */
export const STREAM_HEARTBEAT_MS = 500;
/** Silence after which either side takes the other for gone (ms). */
export const STREAM_PEER_TIMEOUT_MS = 2000;

/** The message proxy's requests: payload class and reply (or frames) of each subject. */
export const ProxyRpc = {
  // Long calls: they wait on the model, which may take longer than RPC_TIMEOUT_MS.
  messages: declareLongCall(ProxySubjects.messages, MessagesCommand).returns<MessagesReply>(),
  sendPrompt: declareLongCall(ProxySubjects.sendPrompt, SendPromptCommand).returns<PromptView>(),
  /** The OpenAI route: a MessagesCommand whose body is a Chat Completions request. */
  chat: declareLongCall(ProxySubjects.chat, MessagesCommand).returns<MessagesReply>(),
  scan: declareRpc(ProxySubjects.scan, ScanCommand).returns<ScanView>(),
  health: declareRpc(ProxySubjects.health).returns<ServiceHealthView>(),
} as const;

export const ProxyStreams = {
  /** Frames of one streamed exchange; `MessagesCommand.cancelSubject` names its cancel signal. */
  messages: declareStream(ProxySubjects.messagesStream, MessagesCommand).frames<StreamFrame>(),
  chat: declareStream(ProxySubjects.chatStream, MessagesCommand).frames<StreamFrame>(),
} as const;

/**
 * A request's twin on the bulk lane: same payload and reply, subject `proxy.bulk.*`; where no
 * replica takes bulk work, the request goes to its own subject.
 */
function onBulkLane<C extends { readonly subject: string }>(contract: C): C {
  return { ...contract, subject: bulkSubject(contract.subject), orElse: contract.subject };
}

/** The requests that carry a client's text, on the bulk lane (see PROXY_BULK_PREFIX). */
export const ProxyBulkRpc = {
  messages: onBulkLane(ProxyRpc.messages),
  sendPrompt: onBulkLane(ProxyRpc.sendPrompt),
  chat: onBulkLane(ProxyRpc.chat),
  scan: onBulkLane(ProxyRpc.scan),
} as const;

export const ProxyBulkStreams = {
  messages: onBulkLane(ProxyStreams.messages),
  chat: onBulkLane(ProxyStreams.chat),
} as const;

const BULK_TWINS = new Map<string, object>(
  [...Object.values(ProxyBulkRpc), ...Object.values(ProxyBulkStreams)].map((c) => [c.orElse ?? c.subject, c]),
);

/** A proxy request's twin on the bulk lane, or undefined for one that has none (health). */
export function bulkTwinOf<C extends { readonly subject: string }>(contract: C): C | undefined {
  return BULK_TWINS.get(contract.subject) as C | undefined;
}

export const ProxySignals = {
  /** The gateway publishes here (empty body) when the client of a stream went away. */
  cancel: declareSignal(PROXY_CANCEL_PREFIX),
} as const;

export const ProxyEventContracts = {
  promptRecorded: declareEvent(ProxyEvents.promptRecorded, PromptRecordedEvent, PROXY_STREAM, { grouped: true }),
} as const;
