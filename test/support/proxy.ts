import type { INestMicroservice } from '@nestjs/common';
import { PROXY_QUEUE } from '@bastion/contracts';
import { loadConfig, PlatformMetrics, startService } from '@bastion/platform';
import { ProxyConfig, ProxyModule } from '../../apps/message-proxy/src';
import { quietLogger, testEnv } from './stack';

/** Starts one message-proxy instance on the test NATS. */
export async function startProxyService(env: Record<string, string> = {}): Promise<INestMicroservice> {
  const config = loadConfig(ProxyConfig, { ...process.env, ...testEnv(), HEALTH_PORT: '0', ...env });
  const logger = quietLogger('message-proxy');
  const metrics = new PlatformMetrics('message-proxy');
  return startService(ProxyModule.forRoot(config, logger, metrics), {
    queue: PROXY_QUEUE,
    natsUrl: config.NATS_URL,
    logger,
    metrics,
  });
}
