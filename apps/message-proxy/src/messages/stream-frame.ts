/** Declared with the stream's contract (`ProxyStreams.messages`), which the gateway reads too. */
export { type StreamFrame, STREAM_HEARTBEAT_MS, STREAM_PEER_TIMEOUT_MS } from '@bastion/contracts';
