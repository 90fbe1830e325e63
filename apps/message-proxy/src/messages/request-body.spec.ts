import { AnthropicMessage, ChatCompletionRequest, ChatMessage, DomainError, MessagesRequest } from '@bastion/contracts';
import { readRequestBody } from './request-body';

const messages = (raw: string) =>
  readRequestBody(raw, MessagesRequest, { field: 'messages', element: AnthropicMessage });

function violation(run: () => unknown): DomainError {
  try {
    run();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('no violation');
}

describe('readRequestBody', () => {
  it('parses a valid body and keeps every field as sent, fields it does not check included', () => {
    const body = messages(
      '{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"top_k":3}',
    );
    expect(body).toEqual({
      model: 'm',
      max_tokens: 5,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      top_k: 3,
    });
    // Plain JSON, not class instances: it goes on to the provider as it is.
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.getPrototypeOf((body.messages as object[])[0])).toBe(Object.prototype);
  });

  it('refuses text that is not a JSON object', () => {
    expect(violation(() => messages('{"model":')).message).toBe('request body is not valid JSON');
    expect(violation(() => messages('[1]')).message).toBe('request body must be a JSON object');
    expect(violation(() => messages('')).details[0].loc).toEqual(['body']);
  });

  it("names each violation's field from the body down", () => {
    const err = violation(() => messages('{"model":1,"max_tokens":0,"messages":[{"role":"system","content":"x"}]}'));
    const locs = err.details.map((d) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.model', 'body.max_tokens', 'body.messages.0.role']));
    expect(err.message).toContain('model must be a string');
    expect(violation(() => messages('{"model":"m","max_tokens":1,"messages":[]}')).message).toContain(
      'messages must contain at least 1 elements',
    );
    expect(violation(() => messages('{"model":"m","max_tokens":1,"messages":["x"]}')).details.length).toBeGreaterThan(
      0,
    );
    expect(
      violation(() => messages('{"model":"m","max_tokens":1,"messages":[{"role":"user"}],"stream":"yes"}')).message,
    ).toContain('stream must be a boolean value');
  });

  it('refuses a __proto__ field, which would otherwise turn the check off', () => {
    expect(violation(() => messages('{"__proto__":{},"model":1,"max_tokens":0,"messages":"x"}')).message).toContain(
      '__proto__',
    );
    expect(
      violation(() => messages('{"model":"m","max_tokens":1,"messages":[{"__proto__":{},"role":"system"}]}')).message,
    ).toContain('__proto__');
  });

  it('checks a Chat Completions body against its own class', () => {
    const chat = (raw: string) =>
      readRequestBody(raw, ChatCompletionRequest, { field: 'messages', element: ChatMessage });
    expect(chat('{"model":"m","messages":[{"role":"developer","content":"x"}]}').model).toBe('m');
    expect(violation(() => chat('{"model":"m","messages":[{"role":"robot"}]}')).details[0].loc).toEqual([
      'body',
      'messages',
      '0',
      'role',
    ]);
  });
});
