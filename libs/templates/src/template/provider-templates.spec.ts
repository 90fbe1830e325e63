import { buildScope } from '../scope/build-scope';
import { compileTemplate } from './compile-template';
import { validateTemplate } from './validate-template';

/**
 * Provider templates as tenants write them: the request part renders before the call, `outputs`
 * after it with `response` in the scope.
 */
function splitTemplate(template: Record<string, unknown>) {
  const { outputs, ...request } = template;
  return { request: compileTemplate(request), outputs: compileTemplate(outputs, { path: ['outputs'] }) };
}

const jsonResponse = (statusCode: number, body: unknown) => ({
  statusCode,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

const messages = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Hello' },
];

describe('an OpenAI chat completions template', () => {
  const template = {
    type: 'request',
    method: 'POST',
    url: '{{ baseUrl }}/v1/chat/completions',
    headers: { Authorization: 'Bearer {{ apiKey }}', 'Content-Type': 'application/json' },
    json: {
      model: '{{ model }}',
      messages: '{{ messages }}',
      temperature: '{{ temperature ?? 0.7 }}',
    },
    timeout: 60,
    outputs: {
      content: '{{ response.json()?.choices?.[0]?.message?.content }}',
      statusCode: '{{ response.statusCode }}',
      finished: '{{ Array.contains(["stop", "length"], response.json()?.choices?.[0]?.finish_reason) }}',
      error: '{{ response.statusCode >= 400 ? response.json()?.error?.message : undefined }}',
    },
  };
  const { request, outputs } = splitTemplate(template);
  const inputs = { baseUrl: 'https://api.openai.com', model: 'gpt-4o-mini' };
  const secrets = { apiKey: 'sk-test' };

  it('validates against its inputs and secrets', () => {
    expect(validateTemplate(template, { knownNames: ['baseUrl', 'model', 'apiKey', 'temperature'] })).toEqual([]);
  });

  it('renders the request with typed JSON values', () => {
    expect(request.render(buildScope({ prompt: 'Hello', messages, inputs, secrets }))).toEqual({
      type: 'request',
      method: 'POST',
      url: 'https://api.openai.com/v1/chat/completions',
      headers: { Authorization: 'Bearer sk-test', 'Content-Type': 'application/json' },
      json: { model: 'gpt-4o-mini', messages, temperature: 0.7 },
      timeout: 60,
    });
  });

  it('reads the outputs from a response', () => {
    const response = jsonResponse(200, {
      choices: [{ message: { role: 'assistant', content: 'Hi!' }, finish_reason: 'stop' }],
    });
    expect(outputs.render(buildScope({ response }))).toEqual({ content: 'Hi!', statusCode: 200, finished: true });
  });

  it('reads an error response without failing on the missing choices', () => {
    const response = jsonResponse(401, { error: { message: 'Incorrect API key provided' } });
    expect(outputs.render(buildScope({ response }))).toEqual({
      statusCode: 401,
      finished: false,
      error: 'Incorrect API key provided',
    });
  });

  it('points at the output that cannot be read', () => {
    const response = { statusCode: 502, headers: {}, body: '<html>Bad gateway</html>' };
    expect(() => outputs.render(buildScope({ response }))).toThrow(
      'outputs.content: response.json(): the response body is not valid JSON in {{ response.json()?.choices?.[0]?.message?.content }} (position 0, expression offset 0)',
    );
  });
});

describe('an Anthropic messages template', () => {
  const template = {
    type: 'request',
    method: 'POST',
    url: "{{ baseUrl ?? 'https://api.anthropic.com' }}/v1/messages",
    headers: { 'x-api-key': '{{ apiKey }}', 'anthropic-version': '2023-06-01' },
    json: {
      model: '{{ model }}',
      max_tokens: '{{ +(maxTokens ?? 1024) }}',
      system: "{{ messages[0]?.role === 'system' ? messages[0].content : undefined }}",
      messages: "{{ [{role: 'user', content: [{type: 'text', text: prompt}]}] }}",
    },
    outputs: {
      content: '{{ response.json()?.content?.[0]?.text }}',
      stopReason: '{{ response.json()?.stop_reason }}',
      inputTokens: '{{ response.json()?.usage?.input_tokens ?? 0 }}',
      requestId: "{{ response.headers['request-id'] }}",
    },
  };
  const { request, outputs } = splitTemplate(template);
  const inputs = { model: 'claude-3-5-haiku', maxTokens: '256' };

  it('renders the request, turning a numeric input into a number', () => {
    const scope = buildScope({ prompt: 'Hi', messages, inputs, secrets: { apiKey: 'k' } });
    expect(request.render(scope)).toEqual({
      type: 'request',
      method: 'POST',
      url: 'https://api.anthropic.com/v1/messages',
      headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      json: {
        model: 'claude-3-5-haiku',
        max_tokens: 256,
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      },
    });
  });

  it('leaves out the system prompt when there is none', () => {
    const scope = buildScope({ prompt: 'Hi', messages: [], inputs, secrets: { apiKey: 'k' } });
    expect(request.render(scope)).not.toHaveProperty('json.system');
  });

  it('reads the outputs, with headers by lower-case name', () => {
    const response = {
      ...jsonResponse(200, {
        content: [{ type: 'text', text: 'Hello!' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 9 },
      }),
      headers: { 'Request-Id': 'req_1' },
    };
    expect(outputs.render(buildScope({ response }))).toEqual({
      content: 'Hello!',
      stopReason: 'end_turn',
      inputTokens: 9,
      requestId: 'req_1',
    });
  });

  it('refuses a JavaScript habit the language does not have, saying which', () => {
    expect(validateTemplate({ messages: "{{ messages.filter(m => m.role !== 'system') }}" })[0].reason).toBe(
      'templates do not support arrow functions',
    );
    const methodCall = compileTemplate({ json: { n: '{{ messages.at(0) }}' } });
    expect(() => methodCall.render(buildScope({ messages }))).toThrow(
      'json.n: arrays have only "length" and indexes; "at" is not available',
    );
  });
});

describe('a Bedrock-like template', () => {
  const template = {
    type: 'request',
    method: 'POST',
    url: 'https://bedrock-runtime.{{ region }}.amazonaws.com/model/{{ encodeURIComponent(modelId) }}/invoke',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    queryParams: { trace: "{{ debug == 'true' ? 'ENABLED' : 'DISABLED' }}" },
    json: {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 512,
      messages: "{{ [{role: 'user', content: [{type: 'text', text: prompt}]}] }}",
    },
    awsAuth: {
      accessKey: '{{ awsAccessKey }}',
      secretKey: '{{ awsSecretKey }}',
      region: '{{ region }}',
      service: 'bedrock',
    },
    outputs: {
      // A stream chunk carries the event as base64 JSON.
      content: '{{ JSON.parse(String.decode(response.json().chunk.bytes)).delta?.text }}',
      raw: '{{ String.decode(response.json().chunk.bytes) }}',
    },
  };
  const { request, outputs } = splitTemplate(template);

  it('renders the request with an encoded path segment and signing fields', () => {
    const scope = buildScope({
      prompt: 'Hi',
      inputs: { region: 'us-east-1', modelId: 'anthropic.claude-3-haiku-20240307-v1:0' },
      secrets: { awsAccessKey: 'AKIA', awsSecretKey: 'shh' },
    });
    expect(request.render(scope)).toMatchObject({
      url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke',
      queryParams: { trace: 'DISABLED' },
      json: { max_tokens: 512, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] },
      awsAuth: { accessKey: 'AKIA', secretKey: 'shh', region: 'us-east-1', service: 'bedrock' },
    });
  });

  it('decodes a base64 chunk in the outputs', () => {
    const event = JSON.stringify({ type: 'content_block_delta', delta: { text: 'Héllo' } });
    const response = jsonResponse(200, { chunk: { bytes: Buffer.from(event).toString('base64') } });
    expect(outputs.render(buildScope({ response }))).toEqual({ content: 'Héllo', raw: event });
  });
});
