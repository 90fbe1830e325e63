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

/** Plain {role, content} turns, for providers reached through a template. */
export function plainTurns(messages: AnthropicMessageLike[]): { role: string; content: string }[] {
  return messages.map((m) => ({
    role: m.role,
    content:
      typeof m.content === 'string'
        ? m.content
        : m.content
            .filter((b) => b.type === 'text')
            .map((b) => b.text ?? '')
            .join('\n'),
  }));
}

/** The error types of the Messages API (`error.type`). */
export const ERROR_TYPES: ReadonlySet<string> = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
  'billing_error',
  'timeout_error',
]);

export function responseText(response: AnthropicResponseLike): string {
  return (response.content ?? [])
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('');
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
