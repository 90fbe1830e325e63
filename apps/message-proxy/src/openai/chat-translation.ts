import { randomUUID } from 'node:crypto';
import { DomainError } from '@bastion/contracts';
import { isObject } from '../anthropic/content';
import type { StreamEvent } from '../guard/answer-stream-guard';

/**
 * OpenAI's Chat Completions API in terms of Anthropic's Messages API, both ways: the OpenAI route
 * translates a request to a Messages body, sends it through the one guarded exchange, and
 * translates the (guarded) answer back, as JSON or as `chat.completion.chunk` events.
 */

type Json = Record<string, unknown>;

const DEFAULT_MAX_TOKENS = 1024;

const FINISH: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  pause_turn: 'stop',
  refusal: 'content_filter',
};

/** A Chat Completions request as a Messages body. Throws INVALID_ARGUMENT for what has no translation. */
export function chatToMessages(chat: Json): Json {
  const messages = Array.isArray(chat.messages) ? chat.messages : [];
  const system: string[] = [];
  const out: { role: 'user' | 'assistant'; content: Json[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: Json[]) => {
    if (!blocks.length) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  messages.forEach((m, i) => {
    if (!isObject(m)) throw invalid(['messages', i], 'each message is an object');
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(textOf(m.content, ['messages', i, 'content']));
        return;
      case 'user':
        push('user', userBlocks(m.content, ['messages', i, 'content']));
        return;
      case 'assistant': {
        const blocks: Json[] = [];
        if (m.content !== null && m.content !== undefined) {
          const text = textOf(m.content, ['messages', i, 'content']);
          if (text) blocks.push({ type: 'text', text });
        }
        if (Array.isArray(m.tool_calls)) {
          m.tool_calls.forEach((c, j) => {
            const fn = isObject(c) && isObject(c.function) ? c.function : undefined;
            if (!fn || typeof fn.name !== 'string')
              throw invalid(['messages', i, 'tool_calls', j], 'a tool call names its function');
            blocks.push({
              type: 'tool_use',
              id: String((c as Json).id ?? `call_${j}`),
              name: fn.name,
              input: parseArguments(fn.arguments, ['messages', i, 'tool_calls', j, 'function', 'arguments']),
            });
          });
        }
        push('assistant', blocks);
        return;
      }
      case 'tool':
        push('user', [
          {
            type: 'tool_result',
            tool_use_id: String(m.tool_call_id ?? ''),
            content: textOf(m.content, ['messages', i, 'content']),
          },
        ]);
        return;
      default:
        throw invalid(['messages', i, 'role'], `role must be system, developer, user, assistant or tool`);
    }
  });
  const body: Json = {
    model: chat.model,
    max_tokens: Number(chat.max_completion_tokens ?? chat.max_tokens ?? DEFAULT_MAX_TOKENS),
    messages: out,
  };
  if (system.length) body.system = system.join('\n\n');
  if (typeof chat.temperature === 'number') body.temperature = Math.min(1, chat.temperature);
  if (typeof chat.top_p === 'number') body.top_p = chat.top_p;
  if (chat.stop !== undefined && chat.stop !== null)
    body.stop_sequences = Array.isArray(chat.stop) ? chat.stop : [chat.stop];
  if (Array.isArray(chat.tools)) {
    body.tools = chat.tools.map((t, i) => {
      const fn = isObject(t) && isObject(t.function) ? t.function : undefined;
      if (!fn || typeof fn.name !== 'string')
        throw invalid(['tools', i], 'a tool is {type: "function", function: {name, ...}}');
      return {
        name: fn.name,
        ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
        input_schema: isObject(fn.parameters) ? fn.parameters : { type: 'object' },
      };
    });
  }
  const choice = chat.tool_choice;
  if (choice === 'auto') body.tool_choice = { type: 'auto' };
  else if (choice === 'required') body.tool_choice = { type: 'any' };
  else if (choice === 'none') body.tool_choice = { type: 'none' };
  else if (isObject(choice) && isObject(choice.function))
    body.tool_choice = { type: 'tool', name: choice.function.name };
  return body;
}

/** A (guarded) Messages answer as a Chat Completion. */
export function messageToChat(message: Json, model: string): Json {
  const content = Array.isArray(message.content) ? (message.content as Json[]) : [];
  const text = content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join('');
  const calls = content
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({
      id: String(b.id),
      type: 'function',
      function: { name: String(b.name), arguments: JSON.stringify(b.input ?? {}) },
    }));
  const usage = isObject(message.usage) ? message.usage : {};
  return {
    id: chatId(message.id),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: String(message.model ?? model),
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text || (calls.length ? null : ''),
          ...(calls.length ? { tool_calls: calls } : {}),
          refusal: null,
        },
        logprobs: null,
        finish_reason: FINISH[String(message.stop_reason)] ?? 'stop',
      },
    ],
    usage: usageOf(usage),
  };
}

/**
 * Turns the guarded Anthropic stream events of one answer into `chat.completion.chunk` SSE lines,
 * ending with `data: [DONE]`. Usage comes as a last chunk when the client asked for it.
 */
export class ChatChunkStream {
  private id = chatId(undefined);
  private model: string;
  private readonly created = Math.floor(Date.now() / 1000);
  private readonly tools = new Map<number, number>();
  private usage: Json = {};

  constructor(
    model: string,
    private readonly includeUsage: boolean,
  ) {
    this.model = model;
  }

  event(e: StreamEvent): string {
    switch (e.type) {
      case 'message_start': {
        const m = isObject(e.message) ? e.message : {};
        this.id = chatId(m.id);
        if (typeof m.model === 'string') this.model = m.model;
        if (isObject(m.usage)) this.usage = { ...m.usage };
        return this.chunk({ role: 'assistant', content: '' });
      }
      case 'content_block_start': {
        const b = isObject(e.content_block) ? e.content_block : {};
        // A text block may start with text of its own: the guard read it before the block's deltas.
        if (b.type === 'text') return typeof b.text === 'string' && b.text ? this.chunk({ content: b.text }) : '';
        if (b.type !== 'tool_use') return '';
        const n = this.tools.size;
        this.tools.set(Number(e.index), n);
        return this.chunk({
          tool_calls: [
            { index: n, id: String(b.id), type: 'function', function: { name: String(b.name), arguments: '' } },
          ],
        });
      }
      case 'content_block_delta': {
        const d = isObject(e.delta) ? e.delta : {};
        if (d.type === 'text_delta') return this.chunk({ content: String(d.text ?? '') });
        if (d.type === 'input_json_delta') {
          const n = this.tools.get(Number(e.index));
          return n === undefined
            ? ''
            : this.chunk({ tool_calls: [{ index: n, function: { arguments: String(d.partial_json ?? '') } }] });
        }
        return '';
      }
      case 'message_delta': {
        const d = isObject(e.delta) ? e.delta : {};
        if (isObject(e.usage)) this.usage = { ...this.usage, ...e.usage };
        return this.chunk({}, FINISH[String(d.stop_reason)] ?? 'stop');
      }
      case 'message_stop':
        return (
          (this.includeUsage
            ? data({
                id: this.id,
                object: 'chat.completion.chunk',
                created: this.created,
                model: this.model,
                choices: [],
                usage: usageOf(this.usage),
              })
            : '') + 'data: [DONE]\n\n'
        );
      case 'error': {
        const err = isObject(e.error) ? e.error : {};
        return data({
          error: openAiError(
            String(err.message ?? 'the stream failed'),
            String(err.type ?? 'api_error'),
            err.cai_error,
          ),
        });
      }
      default:
        return '';
    }
  }

  private chunk(delta: Json, finish: string | null = null): string {
    return data({
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
  }
}

/** OpenAI's error body; a guardrail block carries the scanner results as `cai_error`. */
export function openAiError(message: string, type: string, caiError?: unknown): Json {
  return {
    message,
    type,
    param: null,
    code: caiError ? 'guardrail_blocked' : null,
    ...(caiError ? { cai_error: caiError } : {}),
  };
}

function data(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/** The answer's id as scanned, behind a prefix: cut, its edges would differ from what was scanned ("msg_<digits>"). */
function chatId(id: unknown): string {
  return `chatcmpl-${typeof id === 'string' ? id : randomUUID().replace(/-/g, '')}`;
}

function usageOf(u: Json): Json {
  const prompt =
    Number(u.input_tokens ?? 0) + Number(u.cache_read_input_tokens ?? 0) + Number(u.cache_creation_input_tokens ?? 0);
  const completion = Number(u.output_tokens ?? 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function userBlocks(content: unknown, loc: (string | number)[]): Json[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw invalid(loc, 'content is a string or a list of parts');
  return content.map((part, k) => {
    if (!isObject(part)) throw invalid([...loc, k], 'each part is an object');
    if (part.type === 'text') return { type: 'text', text: String(part.text ?? '') };
    if (part.type === 'image_url') {
      const url = String((isObject(part.image_url) ? part.image_url.url : part.image_url) ?? '');
      const inline = /^data:([^;]+);base64,(.*)$/s.exec(url);
      return inline
        ? { type: 'image', source: { type: 'base64', media_type: inline[1], data: inline[2] } }
        : { type: 'image', source: { type: 'url', url } };
    }
    // Audio, files and part types to come: passed on typed as they are, so the guard's policy for
    // content it cannot read decides (refused by default).
    return { ...part };
  });
}

function textOf(content: unknown, loc: (string | number)[]): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p, k) => {
        if (isObject(p) && p.type === 'text') return String(p.text ?? '');
        throw invalid([...loc, k], 'only text parts are allowed here');
      })
      .join('');
  }
  if (content === null || content === undefined) return '';
  throw invalid(loc, 'content is a string or a list of text parts');
}

function parseArguments(args: unknown, loc: (string | number)[]): unknown {
  if (isObject(args)) return args;
  try {
    const v: unknown = JSON.parse(String(args ?? '{}'));
    return isObject(v) ? v : { value: v };
  } catch {
    throw invalid(loc, 'arguments must be a JSON object');
  }
}

function invalid(loc: (string | number)[], msg: string): DomainError {
  return DomainError.invalid(`${loc.join('.')}: ${msg}`, [
    { loc: ['body', ...loc.map(String)], msg, type: 'value_error' },
  ]);
}
