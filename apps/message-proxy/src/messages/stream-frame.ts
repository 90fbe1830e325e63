/** Declared with the stream's contract (`ProxyStreams.messages`), which the gateway reads too. */
export type { StreamFrame } from '@bastion/contracts';
