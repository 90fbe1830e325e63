import { DEFAULT_TEST_PROMPT, splitTestPrompt, testFailure } from './test-prompt';

describe('splitTestPrompt', () => {
  it('takes inputs.prompt as the test prompt and leaves it out of the inputs', () => {
    expect(splitTestPrompt({ prompt: 'Ping?', model: 'm' })).toEqual({ prompt: 'Ping?', inputs: { model: 'm' } });
  });

  it('prefers inputs.prompt over the prompt alias, then the alias, then the default', () => {
    expect(splitTestPrompt({ prompt: 'from inputs' }, 'from alias').prompt).toBe('from inputs');
    expect(splitTestPrompt({ model: 'm' }, 'from alias')).toEqual({ prompt: 'from alias', inputs: { model: 'm' } });
    expect(splitTestPrompt(undefined)).toEqual({ prompt: DEFAULT_TEST_PROMPT, inputs: {} });
  });

  it('keeps an empty inputs.prompt as the prompt it is', () => {
    expect(splitTestPrompt({ prompt: '' }, 'alias').prompt).toBe('');
  });
});

describe('testFailure', () => {
  it('passes a test with content and no error', () => {
    expect(testFailure({ error: null, content: 'hi', statusCode: 200 })).toBeNull();
  });

  it('fails with the error, or for an answer without content', () => {
    expect(testFailure({ error: 'the provider answered HTTP 401', content: null, statusCode: 401 })).toBe(
      'the provider answered HTTP 401',
    );
    expect(testFailure({ error: null, content: null, statusCode: 200 })).toBe(
      'the provider answered HTTP 200 without content',
    );
    expect(testFailure({ error: null, content: null, statusCode: null })).toBe('the provider answered without content');
  });
});
