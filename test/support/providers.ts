import type { INestMicroservice } from '@nestjs/common';
import { PROVIDERS_QUEUE } from '@bastion/contracts';
import { ProvidersConfig, ProvidersModule } from '../../apps/providers/src';
import { startTestService } from './stack';

/** Starts one providers-service instance on the test database and NATS. */
export function startProvidersService(env: Record<string, string> = {}): Promise<INestMicroservice> {
  return startTestService(
    {
      service: 'providers',
      queue: PROVIDERS_QUEUE,
      config: ProvidersConfig,
      module: (c, l, m) => ProvidersModule.forRoot(c, l, m),
    },
    env,
  );
}
