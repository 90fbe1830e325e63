import { DomainError } from '@bastion/contracts';
import { ChatChunkStream, chatToMessages, messageToChat } from './chat-translation';

describe('chatToMessages', () => {
  it('folds system and developer messages into system, merges consecutive turns and maps limits', () => {
    const body = chatToMessages({
      model: 'm',
      max_tokens: 10,
      max_completion_tokens: 20,
      stop: 'END',
      temperature: 1.7,
      messages: [
        { role: 'system', content: 'a' },
        { role: 'developer', content: [{ type: 'text', text: 'b' }] },
        { role: 'user', content: 'one' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'two' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ],
    });
    expect(body).toEqual({
      model: 'm',
      max_tokens: 20,
      system: 'a\n\nb',
      stop_sequences: ['END'],
      temperature: 1,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'one' },
            { type: 'text', text: 'two' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          ],
        },
      ],
    });
  });

  it('refuses what it cannot translate with a field-level 4xx', () => {
    expect(() => chatToMessages({ messages: [{ role: 'wizard', content: 'x' }] })).toThrow(DomainError);
    expect(() =>
      chatToMessages({
        messages: [{ role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{oops' } }] }],
      }),
    ).toThrow(/arguments must be a JSON object/);
  });
});

describe('messageToChat and ChatChunkStream', () => {
  it('maps finish reasons, tool calls and usage', () => {
    const chat = messageToChat(
      {
        id: 'msg_1',
        model: 'm',
        stop_reason: 'max_tokens',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'thinking', thinking: 'hmm' },
        ],
        usage: { input_tokens: 2, output_tokens: 3 },
      },
      'm',
    );
    expect(chat).toMatchObject({
      id: 'chatcmpl-msg_1',
      object: 'chat.completion',
      choices: [{ finish_reason: 'length', message: { content: 'hi' } }],
      usage: { total_tokens: 5 },
    });
  });

  it('writes chunks and ends with [DONE]', () => {
    const s = new ChatChunkStream('m', true);
    const out = [
      s.event({ type: 'message_start', message: { id: 'msg_2', usage: { input_tokens: 4 } } }),
      s.event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      s.event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'yo' } }),
      s.event({ type: 'ping' }),
      s.event({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }),
      s.event({ type: 'message_stop' }),
    ].join('');
    const chunks = out
      .split('\n\n')
      .filter(Boolean)
      .map((l) => l.replace(/^data: /, ''));
    expect(chunks.at(-1)).toBe('[DONE]');
    const parsed = chunks.slice(0, -1).map((c) => JSON.parse(c));
    expect(parsed.map((c) => c.choices[0]?.delta?.content ?? null)).toEqual(['', 'yo', null, null]);
    expect(parsed.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 4, completion_tokens: 1 } });
  });

  it("sends the text a text block starts with, which the guard read before the block's deltas", () => {
    const s = new ChatChunkStream('m', false);
    const out = [
      s.event({ type: 'message_start', message: { id: 'msg_3' } }),
      s.event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'AKIA' } }),
      s.event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'IOSF' } }),
    ].join('');
    const contents = out
      .split('\n\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l.replace(/^data: /, '')).choices[0]?.delta?.content);
    expect(contents.join('')).toBe('AKIAIOSF');
  });
});
