import type { ProviderTemplateView } from '@bastion/contracts';
import { TemplateError } from '@bastion/templates';
import { redactSecrets } from './redact';
import { runProvider } from './run-provider';
import { type OutgoingRequest, type Signers, type Transport, TransportError } from './transport';

const openaiLike: ProviderTemplateView = {
  type: 'request',
  method: 'post',
  url: '{{ baseUrl }}/v1/chat/completions',
  queryParams: { 'api-version': '{{ apiVersion }}', empty: '{{ missing }}' },
  headers: { Authorization: 'Bearer {{ apiKey }}', 'X-Empty': '' },
  json: { model: '{{ model }}', messages: '{{ messages }}', max_tokens: '{{ +maxTokens }}' },
  timeout: 5,
  outputs: {
    content: '{{ response.json()?.choices?.[0]?.message?.content }}',
    statusCode: '{{ response.statusCode }}',
  },
};

const inputs = { baseUrl: 'https://llm.example', apiVersion: '2024', model: 'm1', maxTokens: '64' };
const secrets = { apiKey: 'sk-test-1234567890' };
const noSigners: Signers = { aws: async () => ({}), oci: () => ({}) };

function transport(
  answer: (r: OutgoingRequest) => { statusCode: number; body: string },
): Transport & { sent: OutgoingRequest[] } {
  const sent: OutgoingRequest[] = [];
  return { sent, send: async (r) => (sent.push(r), { headers: { 'content-type': 'application/json' }, ...answer(r) }) };
}

describe('runProvider', () => {
  it('renders the request as it goes on the wire and reads content from the answer', async () => {
    const t = transport(() => ({
      statusCode: 200,
      body: JSON.stringify({ choices: [{ message: { content: 'hello' } }] }),
    }));
    const result = await runProvider(
      { template: openaiLike, inputs, secrets, prompt: 'Say hello.' },
      { transport: t, signers: noSigners },
    );
    expect(t.sent[0]).toEqual({
      method: 'POST',
      url: 'https://llm.example/v1/chat/completions?api-version=2024',
      headers: { authorization: 'Bearer sk-test-1234567890', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm1', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64 }),
      timeoutMs: 5000,
    });
    expect(result).toMatchObject({ content: 'hello', statusCode: 200, error: null, failure: null });
  });

  it("keeps a template's timeout within the operator's ceiling, one written out and one rendered from an input", async () => {
    const ok = () => ({ statusCode: 200, body: '{}' });
    const ceiling = { signers: noSigners, defaultTimeoutMs: 30_000, maxTimeoutMs: 120_000 };
    const timeouts = async (template: ProviderTemplateView, extra: Record<string, string> = {}) => {
      const t = transport(ok);
      await runProvider(
        { template, inputs: { ...inputs, ...extra }, secrets, prompt: 'x' },
        { transport: t, ...ceiling },
      );
      return t.sent[0].timeoutMs;
    };
    // Shorter than the ceiling: the template's own; longer: the ceiling; none: the default.
    expect(await timeouts(openaiLike)).toBe(5000);
    expect(await timeouts({ ...openaiLike, timeout: 600 })).toBe(120_000);
    expect(
      await timeouts({ ...openaiLike, timeout: '{{ +wait }}' } as unknown as ProviderTemplateView, { wait: '1e12' }),
    ).toBe(120_000);
    const { timeout: _none, ...untimed } = openaiLike as ProviderTemplateView & { timeout?: number };
    expect(await timeouts(untimed as ProviderTemplateView)).toBe(30_000);
  });

  it('reports an error answer and a failed transport in the result', async () => {
    const failing = transport(() => ({ statusCode: 401, body: '{"error":{"message":"bad key"}}' }));
    expect(
      await runProvider(
        { template: openaiLike, inputs, secrets, prompt: 'x' },
        { transport: failing, signers: noSigners },
      ),
    ).toMatchObject({
      statusCode: 401,
      error: 'the provider answered HTTP 401',
      content: null,
    });
    const down: Transport = {
      send: async () => Promise.reject(new TransportError('timeout', 'no answer within 5000 ms')),
    };
    expect(
      await runProvider(
        { template: openaiLike, inputs, secrets, prompt: 'x' },
        { transport: down, signers: noSigners },
      ),
    ).toMatchObject({
      response: null,
      failure: 'timeout',
      error: 'no answer within 5000 ms',
    });
  });

  it('blanks the secrets a failed transport names, a host lower-cased included', async () => {
    const keyed: ProviderTemplateView = { ...openaiLike, url: 'https://{{ acct }}.llm.example/v1?key={{ apiKey }}' };
    const down: Transport = {
      send: async (r) => Promise.reject(new TransportError('unreachable', `${r.url} could not be reached`)),
    };
    const result = await runProvider(
      { template: keyed, inputs, secrets: { ...secrets, acct: 'AcctSecret99' }, prompt: 'x' },
      { transport: down, signers: noSigners },
    );
    expect(result.error).toMatch(/^https:\/\/\[redacted\]\.llm\.example\/v1\?key=\[redacted\].* could not be reached$/);
    expect(result.error?.toLowerCase()).not.toContain('acctsecret99');
    expect(result.error).not.toContain(secrets.apiKey);
  });

  it("does not let the caller's prompt choose where the secrets go", async () => {
    const steered: ProviderTemplateView = { ...openaiLike, url: 'https://{{ prompt }}/v1/chat/completions' };
    const t = transport(() => ({ statusCode: 200, body: '{}' }));
    const result = await runProvider(
      { template: steered, inputs, secrets, prompt: 'evil.example#' },
      { transport: t, signers: noSigners },
    );
    expect(result).toMatchObject({ failure: 'blocked_address', response: null });
    expect(result.error).toMatch(/origin from prompt, which an upstream's answer or the caller chose/);
    expect(t.sent).toEqual([]);
    // The prompt in a path or query, or a request without a secret, goes as written.
    for (const [template, secretsGiven] of [
      [{ ...openaiLike, url: '{{ baseUrl }}/v1/{{ prompt }}' }, secrets],
      [{ ...openaiLike, url: 'https://{{ prompt }}/v1', headers: {} }, {}],
    ] as const) {
      const ok = transport(() => ({ statusCode: 200, body: '{"choices":[{"message":{"content":"hi"}}]}' }));
      const r = await runProvider(
        { template, inputs, secrets: secretsGiven, prompt: 'llm.example' },
        { transport: ok, signers: noSigners },
      );
      expect(r).toMatchObject({ content: 'hi', failure: null });
      expect(ok.sent).toHaveLength(1);
    }
  });

  it('says so when the answer is not what the outputs read', async () => {
    const html = transport(() => ({ statusCode: 502, body: '<html>bad gateway</html>' }));
    const result = await runProvider(
      { template: openaiLike, inputs, secrets, prompt: 'x' },
      { transport: html, signers: noSigners },
    );
    expect(result.error).toMatch(/^could not read the provider's answer/);
  });

  it('adds the signature headers of awsAuth and ociAuth, leaving empty optional fields out', async () => {
    const t = transport(() => ({ statusCode: 200, body: '{}' }));
    const seen: unknown[] = [];
    const signers: Signers = {
      aws: async (_r, auth) => (seen.push(auth), { authorization: 'AWS4-HMAC-SHA256 ...' }),
      oci: (_r, auth) => (seen.push(auth), { 'x-oci': 'signed' }),
    };
    const template: ProviderTemplateView = {
      type: 'request',
      method: 'POST',
      url: 'https://bedrock.example/model',
      json: { a: 1 },
      awsAuth: {
        accessKey: '{{ ak }}',
        secretKey: '{{ sk }}',
        region: 'us-east-1',
        service: 'bedrock',
        token: '{{ sessionToken }}',
      },
    };
    await runProvider(
      { template, inputs: {}, secrets: { ak: 'AKIA', sk: 'secret-key' }, prompt: 'x' },
      { transport: t, signers },
    );
    expect(seen).toEqual([{ accessKey: 'AKIA', secretKey: 'secret-key', region: 'us-east-1', service: 'bedrock' }]);
    expect(t.sent[0].headers.authorization).toBe('AWS4-HMAC-SHA256 ...');
  });

  it('throws a TemplateError when the url does not render to an absolute URL', async () => {
    const t = transport(() => ({ statusCode: 200, body: '{}' }));
    await expect(
      runProvider(
        { template: { ...openaiLike, url: '{{ baseUrl }}' }, inputs: { baseUrl: 'not a url' }, secrets, prompt: 'x' },
        { transport: t, signers: noSigners },
      ),
    ).rejects.toThrow(TemplateError);
  });
});

describe('redactSecrets', () => {
  it('blanks every occurrence, longest secret first, and leaves short values alone', () => {
    expect(redactSecrets('Bearer sk-abc-123 and sk-abc-123-long', ['sk-abc-123', 'sk-abc-123-long', 'ab'])).toBe(
      'Bearer [redacted] and [redacted]',
    );
  });
});
