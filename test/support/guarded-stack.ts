import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { MockUpstream } from './mock-upstream';
import { startProjectsService } from './projects';
import { startPromptsService } from './prompts';
import { startProvidersService } from './providers';
import { startProxyService } from './proxy';
import { startGateway } from './stack';

/** The guarded path end to end: a mock model vendor, the four services it needs and the gateway. */
export interface GuardedStack {
  upstream: MockUpstream;
  base: string;
  close(): Promise<void>;
}

export async function startGuardedStack(proxyEnv: Record<string, string> = {}): Promise<GuardedStack> {
  const upstream = await new MockUpstream().start();
  const services: INestMicroservice[] = [
    await startPromptsService(),
    await startProvidersService({ OUTBOUND_ALLOWLIST: '127.0.0.1' }),
    await startProjectsService(),
    await startProxyService({ OUTBOUND_ALLOWLIST: '127.0.0.1', ...proxyEnv }),
  ];
  const { app: gateway, url: base }: { app: INestApplication; url: string } = await startGateway();
  return {
    upstream,
    base,
    close: async () => {
      await gateway.close();
      for (const s of services) await s.close();
      await upstream.stop();
    },
  };
}
