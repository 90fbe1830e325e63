import type { INestMicroservice } from '@nestjs/common';
import { PROXY_QUEUE } from '@bastion/contracts';
import { laneFilter, ProxyConfig, ProxyModule } from '../../apps/message-proxy/src';
import { startTestService } from './stack';

/** Starts one message-proxy instance on the test NATS. */
export function startProxyService(env: Record<string, string> = {}): Promise<INestMicroservice> {
  return startTestService(
    {
      service: 'message-proxy',
      queue: PROXY_QUEUE,
      config: ProxyConfig,
      module: (c, l, m) => ProxyModule.forRoot(c, l, m),
      answers: (c) => laneFilter(c.PROXY_LANE),
    },
    env,
  );
}
