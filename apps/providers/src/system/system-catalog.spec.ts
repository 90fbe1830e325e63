import { buildScope, renderTemplate, validateTemplate } from '@bastion/templates';
import { SYSTEM_PROVIDERS } from './system-catalog';

describe('system provider catalog', () => {
  it.each(SYSTEM_PROVIDERS.map((p) => [p.name, p] as const))('%s: its template is valid and renders a request to the vendor', (_name, p) => {
    const known = ['prompt', 'messages', 'response', ...Object.keys(p.inputs), ...p.secretNames];
    expect(validateTemplate(p.template, { knownNames: known })).toEqual([]);
    const secrets = Object.fromEntries(p.secretNames.map((n) => [n, `secret-${n}`]));
    const { outputs: _outputs, ...request } = p.template;
    const rendered = renderTemplate(request, buildScope({ prompt: 'Say hello.', inputs: p.inputs, secrets })) as { url: string; method: string };
    expect(rendered.method).toBe('POST');
    expect(rendered.url).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]+\//);
  });

  it('reads content out of each vendor\'s real response shape', () => {
    const bodies: Record<string, unknown> = {
      anthropic: { content: [{ type: 'text', text: 'hi' }] },
      openai: { choices: [{ message: { content: 'hi' } }] },
      'azure-openai': { choices: [{ message: { content: 'hi' } }] },
      'aws-bedrock': { output: { message: { content: [{ text: 'hi' }] } } },
      'oci-genai': { chatResponse: { choices: [{ message: { content: [{ type: 'TEXT', text: 'hi' }] } }] } },
      'generic-http': { output: 'hi' },
    };
    for (const p of SYSTEM_PROVIDERS) {
      const scope = buildScope({ response: { statusCode: 200, headers: {}, body: JSON.stringify(bodies[p.name]) } });
      expect(renderTemplate(p.template.outputs, scope)).toMatchObject({ content: 'hi', statusCode: 200 });
    }
  });

  it('has unique ids and names', () => {
    expect(new Set(SYSTEM_PROVIDERS.map((p) => p.id)).size).toBe(SYSTEM_PROVIDERS.length);
    expect(new Set(SYSTEM_PROVIDERS.map((p) => p.name)).size).toBe(SYSTEM_PROVIDERS.length);
  });
});
