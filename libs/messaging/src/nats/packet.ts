import { randomUUID } from 'node:crypto';
import type { Msg, MsgHdrs } from '@nats-io/transport-node';
import { NatsRequestJSONDeserializer } from '@nestjs/microservices';

/**
 * How a request travels. Ordinarily as Nest's packet, `{pattern, data, id}` in JSON. A payload
 * with a `rawBody` (a model call's body, passed on as the client sent it) travels apart: the body
 * is the message's data, and the rest of the packet, in JSON, is the PACKET_HEADER. A large prompt
 * is then neither escaped into the packet's JSON by the caller nor unescaped out of it by the
 * service; the service decodes it once, as text. The caller may hold the body as the bytes it
 * received (`Wire`): they go out as they are, never made a string.
 */
export const PACKET_HEADER = 'Bastion-Packet';

/** A payload as a caller may send it: a `rawBody` may be given as bytes (UTF-8); the service receives it as text. */
export type Wire<P> = P extends { rawBody: string } ? Omit<P, 'rawBody'> & { rawBody: string | Uint8Array } : P;

/** The message data of a request, with PACKET_HEADER set in `h` when the payload carries a `rawBody`. */
export function encodeRequest(subject: string, data: unknown, h: MsgHdrs): string | Uint8Array {
  const rawBody = (data as { rawBody?: unknown } | null)?.rawBody;
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array))
    return JSON.stringify({ pattern: subject, data, id: randomUUID() });
  const rest = { ...(data as Record<string, unknown>), rawBody: undefined };
  // Header values are one line of ASCII: JSON escapes line breaks; anything beyond ASCII is escaped too.
  h.set(PACKET_HEADER, JSON.stringify({ pattern: subject, data: rest, id: randomUUID() }).replace(NON_ASCII, escape));
  return rawBody;
}

const NON_ASCII = /[\u007f-\uffff]/g;
const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The service side: Nest's JSON packets, and packets whose `rawBody` came as the message's data. */
export class PacketDeserializer extends NatsRequestJSONDeserializer {
  override deserialize(msg: Msg, options?: Record<string, unknown>) {
    const header = msg.headers?.get(PACKET_HEADER);
    if (!header) return super.deserialize(msg, options);
    const packet = JSON.parse(header) as { pattern: string; data: Record<string, unknown>; id: string };
    packet.data = { ...packet.data, rawBody: msg.string() };
    return packet;
  }
}

/**
 * A reply larger than the server takes in one message travels in parts, each with this header
 * (`<part>/<parts>`, from 1), in order on the caller's reply subject; the caller joins their data.
 */
export const PART_HEADER = 'Bastion-Part';
/** At most this many parts (of about a max_payload each) per reply: a larger one is refused as too large. */
export const MAX_REPLY_PARTS = 64;

/**
 * Bytes of data one message may carry (a reply's part, an event inline): the server's max_payload
 * less room for headers (16 KiB, or a quarter of a small max_payload).
 */
export function dataBytesPerMessage(maxPayload: number | undefined): number {
  const max = maxPayload ?? 1024 * 1024;
  return max - Math.min(16 * 1024, Math.floor(max / 4));
}
