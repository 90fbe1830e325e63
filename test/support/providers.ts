import type { INestMicroservice } from '@nestjs/common';
import { PROVIDERS_QUEUE } from '@bastion/contracts';
import { createServiceApp, loadConfig } from '@bastion/platform';
import { ProvidersConfig, ProvidersModule } from '../../apps/providers/src';
import { quietLogger, testEnv } from './stack';

/** Starts one providers-service instance on the test database and NATS. */
export async function startProvidersService(env: Record<string, string> = {}): Promise<INestMicroservice> {
  const config = loadConfig(ProvidersConfig, { ...process.env, ...testEnv(), ...env });
  const logger = quietLogger('providers');
  const app = await createServiceApp(ProvidersModule.forRoot(config, logger), { queue: PROVIDERS_QUEUE, natsUrl: config.NATS_URL, logger });
  await app.listen();
  return app;
}
