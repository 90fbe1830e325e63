import type { RequestTemplateView } from '@bastion/contracts';
import { type IncomingResponse, type OutgoingRequest, runProvider } from '@bastion/provider-runtime';
import { buildScope, renderTemplate, validateProviderTemplate } from '@bastion/templates';
import { SYSTEM_PROVIDERS } from './system-catalog';

const requestEntries = SYSTEM_PROVIDERS.filter((p) => p.template.type === 'request') as (Omit<
  (typeof SYSTEM_PROVIDERS)[number],
  'template'
> & { template: RequestTemplateView })[];

describe('system provider catalog', () => {
  it.each(SYSTEM_PROVIDERS.map((p) => [p.name, p] as const))('%s: its template is valid', (_name, p) => {
    expect(validateProviderTemplate(p.template, { knownNames: [...Object.keys(p.inputs), ...p.secretNames] })).toEqual(
      [],
    );
  });

  it.each(requestEntries.map((p) => [p.name, p] as const))('%s: renders a request to the vendor', (_name, p) => {
    const secrets = Object.fromEntries(p.secretNames.map((n) => [n, `secret-${n}`]));
    const { outputs: _outputs, ...request } = p.template;
    const rendered = renderTemplate(request, buildScope({ prompt: 'Say hello.', inputs: p.inputs, secrets })) as {
      url: string;
      method: string;
    };
    expect(rendered.method).toBe('POST');
    expect(rendered.url).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]+\//);
  });

  it("reads content out of each vendor's real response shape", () => {
    const bodies: Record<string, unknown> = {
      anthropic: { content: [{ type: 'text', text: 'hi' }] },
      openai: { choices: [{ message: { content: 'hi' } }] },
      'azure-openai': { choices: [{ message: { content: 'hi' } }] },
      'aws-bedrock': { output: { message: { content: [{ text: 'hi' }] } } },
      'oci-genai': { chatResponse: { choices: [{ message: { content: [{ type: 'TEXT', text: 'hi' }] } }] } },
      'generic-http': { output: 'hi' },
    };
    for (const p of requestEntries) {
      const scope = buildScope({ response: { statusCode: 200, headers: {}, body: JSON.stringify(bodies[p.name]) } });
      expect(renderTemplate(p.template.outputs, scope)).toMatchObject({ content: 'hi', statusCode: 200 });
    }
  });

  it('openai-compatible-oauth: gets a token with the client credentials, then calls the chat with it, retrying a 503', async () => {
    const entry = SYSTEM_PROVIDERS.find((p) => p.name === 'openai-compatible-oauth')!;
    const sent: OutgoingRequest[] = [];
    const answers: IncomingResponse[] = [
      { statusCode: 200, headers: {}, body: JSON.stringify({ access_token: 'tok-1', token_type: 'Bearer' }) },
      { statusCode: 503, headers: {}, body: JSON.stringify({ error: { message: 'busy' } }) },
      { statusCode: 200, headers: {}, body: JSON.stringify({ choices: [{ message: { content: 'hi' } }] }) },
    ];
    const waits: number[] = [];
    const result = await runProvider(
      {
        template: entry.template,
        inputs: { ...entry.inputs, clientId: 'app 1', scope: 'llm.read' },
        secrets: { clientSecret: 's&cret' },
        prompt: 'Say hello.',
      },
      {
        transport: { send: async (r) => (sent.push(r), answers.shift()!) },
        signers: { aws: async () => ({}), oci: () => ({}) },
        sleep: async (ms) => void waits.push(ms),
      },
    );
    expect(sent.map((r) => r.url)).toEqual([
      'https://login.example.com/oauth2/token',
      'https://llm.example.com/v1/chat/completions',
      'https://llm.example.com/v1/chat/completions',
    ]);
    expect(sent[0].body).toBe('grant_type=client_credentials&client_id=app%201&client_secret=s%26cret&scope=llm.read');
    expect(sent[2].headers.authorization).toBe('Bearer tok-1');
    expect(JSON.parse(sent[2].body!)).toEqual({
      model: 'default',
      messages: [{ role: 'user', content: 'Say hello.' }],
    });
    expect(waits).toEqual([2000]);
    expect(result).toMatchObject({ content: 'hi', statusCode: 200, error: null });
  });

  it('has unique ids and names', () => {
    expect(new Set(SYSTEM_PROVIDERS.map((p) => p.id)).size).toBe(SYSTEM_PROVIDERS.length);
    expect(new Set(SYSTEM_PROVIDERS.map((p) => p.name)).size).toBe(SYSTEM_PROVIDERS.length);
  });
});
