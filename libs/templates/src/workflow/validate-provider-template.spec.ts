import { validateProviderTemplate } from './validate-provider-template';

/** The workflow a connections tool sends (API-NOTES §2b): an OAuth stage, then a retried chat call. */
const connectionsWorkflow = () => ({
  type: 'workflow',
  outputs: {
    content: '{{ content }}',
    statusCode: '{{ statusCode }}',
    error: '{{ error }}',
    responseBody: '{{ responseBody }}',
  },
  stages: [
    {
      type: 'request',
      method: 'POST',
      url: '{{ authUrl }}',
      body: 'grant_type=client_credentials&client_id={{ client_id }}&client_secret={{ client_secret }}',
      outputs: { access_token: '{{ response.json()?.access_token }}' },
    },
    {
      type: 'retry',
      attempts: 3,
      backoff: '{{ 2 * attempt }}',
      when: '{{ Array.contains([429, 500, 502, 503, 504], statusCode) }}',
      block: {
        type: 'request',
        method: 'POST',
        url: '{{ baseUrl }}/chat',
        headers: { Authorization: 'Bearer {{ access_token }}' },
        json: '{{ { messages: [{ role: "user", content: prompt }] } }}',
        outputs: {
          content: '{{ response.json()?.choices?.[0]?.message?.content }}',
          statusCode: '{{ response.statusCode }}',
          error: '{{ response.statusCode >= 400 ? "HTTP " + response.statusCode : "" }}',
          responseBody: '{{ response.body }}',
        },
      },
    },
  ],
});
const known = ['authUrl', 'baseUrl', 'client_id', 'client_secret'];

describe('validateProviderTemplate', () => {
  it('accepts the connections workflow: later stages read earlier outputs, a retry reads attempt', () => {
    expect(validateProviderTemplate(connectionsWorkflow(), { knownNames: known })).toEqual([]);
  });

  it('checks a request template as a template, as before', () => {
    expect(
      validateProviderTemplate({ type: 'request', method: 'POST', url: '{{ baseUrl }}' }, { knownNames: known }),
    ).toEqual([]);
    const [e] = validateProviderTemplate({ type: 'request', method: 'POST', url: '{{ nope }}' }, { knownNames: known });
    expect(e.message).toContain('unknown name "nope"');
  });

  it('names the stage and the place of a name no earlier stage yields', () => {
    const w = connectionsWorkflow();
    (w.stages[1] as { block: { headers: Record<string, string> } }).block.headers.Authorization = 'Bearer {{ token }}';
    const [e, ...rest] = validateProviderTemplate(w, { knownNames: known });
    expect(rest).toEqual([]);
    expect(e.loc).toEqual(['stages', 1, 'block', 'headers', 'Authorization']);
    expect(e.message).toContain('stage 2 (retry): unknown name "token"');
  });

  it('does not let a stage read what only a later stage yields', () => {
    const w = connectionsWorkflow();
    (w.stages[0] as { url: string }).url = '{{ authUrl }}?last={{ statusCode }}';
    const errors = validateProviderTemplate(w, { knownNames: known });
    expect(errors.map((e) => [e.loc, e.reason])).toEqual([
      [['stages', 0, 'url'], 'stage 1 (request): unknown name "statusCode"'],
    ]);
  });

  it('knows attempt only inside a retry', () => {
    const w = connectionsWorkflow();
    (w.stages[0] as { url: string }).url = '{{ authUrl }}?n={{ attempt }}';
    expect(validateProviderTemplate(w, { knownNames: known })[0].reason).toBe(
      'stage 1 (request): unknown name "attempt"',
    );
  });

  it('requires outputs that yield content', () => {
    const w: Record<string, unknown> = connectionsWorkflow();
    w.outputs = { statusCode: '{{ statusCode }}' };
    expect(validateProviderTemplate(w, { knownNames: known }).map((e) => [e.loc, e.reason])).toEqual([
      [['outputs'], 'the workflow: outputs must be an object that yields content'],
    ]);
  });

  it('refuses a malformed structure, each problem at its place', () => {
    const errors = validateProviderTemplate(
      {
        type: 'workflow',
        outputs: { content: '{{ content }}' },
        stages: [
          { type: 'request', method: 'POST' },
          { type: 'retry', attempts: 0, backoff: true, when: 5, block: { type: 'retry' } },
          { type: 'loop' },
          {
            type: 'request',
            url: 'https://x.example',
            outputs: { prompt: '{{ response.body }}', content: '{{ response.body }}' },
            extra: 1,
          },
        ],
      },
      { knownNames: known },
    );
    expect(errors.map((e) => [e.loc, e.reason])).toEqual([
      [['stages', 0, 'url'], 'stage 1 (request): url must be a non-empty string'],
      [['stages', 1, 'attempts'], 'stage 2 (retry): attempts must be a whole number from 1 to 10'],
      [['stages', 1, 'block', 'type'], 'stage 2 (retry): block must be a request (type "request")'],
      [['stages', 1, 'backoff'], 'stage 2 (retry): backoff must be a number of seconds or an expression'],
      [['stages', 1, 'when'], 'stage 2 (retry): when must be an expression such as "{{ statusCode >= 500 }}"'],
      [['stages', 2, 'type'], 'stage 3 (loop): type must be "request" or "retry"'],
      [['stages', 3, 'extra'], expect.stringContaining('stage 4 (request): unknown field "extra"')],
      [['stages', 3, 'outputs', 'prompt'], 'stage 4 (request): the output "prompt" would hide the scope name "prompt"'],
    ]);
  });

  it('refuses an output that would hide an input, and empty or oversized stage lists', () => {
    const w = connectionsWorkflow();
    (w.stages[0] as { outputs: Record<string, string> }).outputs = { baseUrl: '{{ response.body }}' };
    expect(validateProviderTemplate(w, { knownNames: known })[0].reason).toBe(
      'stage 1 (request): the output "baseUrl" would hide the scope name "baseUrl"',
    );
    expect(
      validateProviderTemplate({ type: 'workflow', stages: [], outputs: { content: '' } }, { knownNames: [] })[0]
        .reason,
    ).toBe('the workflow: stages must be a non-empty list');
    const many = Array.from({ length: 11 }, () => ({ type: 'request', url: 'https://x.example' }));
    expect(
      validateProviderTemplate({ type: 'workflow', stages: many, outputs: { content: '' } }, { knownNames: [] })[0]
        .reason,
    ).toBe('the workflow: at most 10 stages');
  });

  it('reports syntax errors inside a stage with the stage named', () => {
    const w = connectionsWorkflow();
    (w.stages[1] as { when: string }).when = '{{ statusCode >== 500 }}';
    const [e] = validateProviderTemplate(w, { knownNames: known });
    expect(e.loc).toEqual(['stages', 1, 'when']);
    expect(e.code).toBe('syntax');
    expect(e.reason).toMatch(/^stage 2 \(retry\): /);
  });
});
