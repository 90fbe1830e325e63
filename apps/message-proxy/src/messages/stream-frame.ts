/** What a streamed exchange sends back over NATS, one reply each: the head first, then data. */
export type StreamFrame = { kind: 'head'; status: number; contentType: string; promptId: string } | { kind: 'data'; data: string };
