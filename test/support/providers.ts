import type { INestMicroservice } from '@nestjs/common';
import { PROVIDERS_QUEUE } from '@bastion/contracts';
import { loadConfig, PlatformMetrics, startService } from '@bastion/platform';
import { ProvidersConfig, ProvidersModule } from '../../apps/providers/src';
import { quietLogger, testEnv } from './stack';

/** Starts one providers-service instance on the test database and NATS. */
export async function startProvidersService(env: Record<string, string> = {}): Promise<INestMicroservice> {
  const config = loadConfig(ProvidersConfig, { ...process.env, ...testEnv(), HEALTH_PORT: '0', ...env });
  const logger = quietLogger('providers');
  const metrics = new PlatformMetrics('providers');
  return startService(ProvidersModule.forRoot(config, logger, metrics), {
    queue: PROVIDERS_QUEUE,
    natsUrl: config.NATS_URL,
    logger,
    metrics,
  });
}
