import type { ProviderTemplateView } from '@bastion/contracts';
import { createOutboundClient, type Resolver } from '@bastion/outbound';
import { outboundSigners, outboundTransport } from '@bastion/provider-runtime';
import type { ProvidersConfig } from '../config';
import type { ProviderRepository } from './provider.repository';
import { ProviderTesterService } from './provider-tester.service';

const chat: ProviderTemplateView = {
  type: 'request',
  method: 'post',
  url: '{{ baseUrl }}/v1/chat/completions',
  json: { model: 'm1', messages: '{{ messages }}' },
  outputs: { content: '{{ response.json()?.choices?.[0]?.message?.content }}' },
};

describe('ProviderTesterService, against a host that resolves to a private address', () => {
  it('shows that the destination is not allowed, never what the name resolved to', async () => {
    const internalDns: Resolver = async () => [{ address: '10.2.3.4', family: 4 }];
    const logged: Record<string, unknown>[] = [];
    const client = createOutboundClient({ resolve: internalDns, log: { warn: (details) => logged.push(details) } });
    const tester = new ProviderTesterService({} as ProviderRepository, outboundTransport(client), outboundSigners, {
      PROVIDER_TEST_TIMEOUT_MS: 5_000,
    } as ProvidersConfig);
    try {
      const result = await tester.run({
        template: chat,
        inputs: { baseUrl: 'http://vault.internal:8200' },
        secrets: {},
        prompt: 'hello',
      });
      expect(result.error).toContain('vault.internal is not an allowed destination');
      expect(JSON.stringify(result)).not.toMatch(/\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|private address/);
      expect(logged).toEqual([expect.objectContaining({ host: 'vault.internal', address: '10.2.3.4' })]);
    } finally {
      client.close();
    }
  });
});
