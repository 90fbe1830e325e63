/**
 * What a streamed exchange sends back over NATS, one reply each: the head first, then data. `ping`
 * frames come every STREAM_HEARTBEAT_MS from the start, so the gateway can tell a silent model from
 * a proxy that is gone.
 */
export type StreamFrame = { kind: 'head'; status: number; contentType: string; promptId: string } | { kind: 'data'; data: string } | { kind: 'ping' };

/** How often the proxy sends a ping frame, and the gateway a heartbeat on `<cancelSubject>.alive` (ms). */
export const STREAM_HEARTBEAT_MS = 500;
/** Silence after which either side takes the other for gone (ms). */
export const STREAM_PEER_TIMEOUT_MS = 2000;
