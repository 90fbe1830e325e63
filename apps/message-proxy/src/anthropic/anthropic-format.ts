import { randomUUID } from 'node:crypto';

/** The parts of the Anthropic Messages API the proxy reads and writes. */
export interface AnthropicMessageLike {
  role: string;
  content: string | { type: string; text?: string; [k: string]: unknown }[];
}

export interface AnthropicResponseLike {
  id?: string;
  type?: string;
  role?: string;
  model?: string;
  content?: { type: string; text?: string; [k: string]: unknown }[];
  [k: string]: unknown;
}

/** Where a piece of user text sits, so redacted text can be put back in place. */
export interface TextSlot {
  message: number;
  /** Index of the content block, or -1 for string content. */
  block: number;
  text: string;
}

/** Every text a user wrote in the conversation, in order (system prompts and assistant turns are not user content). */
export function userTextSlots(messages: AnthropicMessageLike[]): TextSlot[] {
  const slots: TextSlot[] = [];
  messages.forEach((m, i) => {
    if (m.role !== 'user') return;
    if (typeof m.content === 'string') slots.push({ message: i, block: -1, text: m.content });
    else m.content.forEach((b, j) => typeof b.text === 'string' && b.type === 'text' && slots.push({ message: i, block: j, text: b.text }));
  });
  return slots;
}

/** A copy of the messages with each slot's text replaced. */
export function withSlotTexts<T extends AnthropicMessageLike>(messages: T[], slots: TextSlot[], texts: string[]): T[] {
  const copy = structuredClone(messages);
  slots.forEach((slot, k) => {
    const m = copy[slot.message];
    if (slot.block === -1) m.content = texts[k];
    else (m.content as { text?: string }[])[slot.block].text = texts[k];
  });
  return copy;
}

/** Plain {role, content} turns, for providers reached through a template. */
export function plainTurns(messages: AnthropicMessageLike[]): { role: string; content: string }[] {
  return messages.map((m) => ({
    role: m.role,
    content: typeof m.content === 'string' ? m.content : m.content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('\n'),
  }));
}

export function responseText(response: AnthropicResponseLike): string {
  return (response.content ?? []).filter((b) => b.type === 'text').map((b) => b.text ?? '').join('');
}

/** Replaces the text of the response's text blocks, block by block, from one joined text of equal length. */
export function withResponseText(response: AnthropicResponseLike, joined: string): AnthropicResponseLike {
  const copy = structuredClone(response);
  let at = 0;
  for (const block of copy.content ?? []) {
    if (block.type !== 'text' || typeof block.text !== 'string') continue;
    block.text = joined.slice(at, at + block.text.length);
    at += block.text.length;
  }
  return copy;
}

/** The answer of a non-Anthropic provider, dressed as a Messages API response. */
export function messageResponse(model: string, text: string): AnthropicResponseLike {
  return {
    id: `msg_${randomUUID().replace(/-/g, '')}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}
