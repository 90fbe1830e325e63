import {
  AnthropicMessage,
  ChatCompletionRequest,
  ChatMessage,
  DomainError,
  MessagesRequest,
  meetsMessagesRequest,
} from '@bastion/contracts';
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

  it('takes the hand-written check of a Messages body only where class-validator agrees (3,000 mutations)', () => {
    const valid = {
      model: 'claude-sonnet-4-5',
      max_tokens: 64,
      stream: false,
      system: 'be brief',
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
      ],
    };
    const odd: unknown[] = [
      null,
      0,
      -1,
      1,
      1.5,
      2 ** 53,
      '1',
      true,
      'x'.repeat(257),
      '😀'.repeat(129),
      [],
      [{}],
      {},
      'user',
      'robot',
    ];
    let s = 20261126;
    const rnd = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)];
    const accepts = (body: object, meets?: typeof meetsMessagesRequest) => {
      try {
        readRequestBody(JSON.stringify(body), MessagesRequest, { field: 'messages', element: AnthropicMessage, meets });
        return true;
      } catch {
        return false;
      }
    };
    let fast = 0;
    for (let i = 0; i < 3000; i++) {
      const body = structuredClone(valid) as Record<string, unknown>;
      for (let k = 0; k < 1 + Math.floor(rnd() * 2); k++) {
        const list = body.messages as unknown[];
        const inMessage = Array.isArray(list) && list.length > 0 && rnd() < 0.4;
        const target = (inMessage ? pick(list) : body) as Record<string, unknown>;
        if (typeof target !== 'object' || target === null) continue;
        const key = pick([...Object.keys(target), 'extra']);
        if (rnd() < 0.2) delete target[key];
        else target[key] = structuredClone(pick(odd)); // a copy: the values are mutated in turn
      }
      const byHand = meetsMessagesRequest(body);
      if (byHand) fast++;
      // Never accepted by hand what class-validator refuses; the verdict through readRequestBody is the same.
      if (byHand) expect({ body, classValidator: accepts(body) }).toEqual({ body, classValidator: true });
      expect({ body, withCheck: accepts(body, meetsMessagesRequest) }).toEqual({ body, withCheck: accepts(body) });
    }
    expect(fast).toBeGreaterThan(300);
  });
});
