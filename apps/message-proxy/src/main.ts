import 'reflect-metadata';
import { PROXY_QUEUE } from '@bastion/contracts';
import { createLogger, initTracing, PlatformMetrics } from '@bastion/observability';
import { natsLogin, closeService, startService, stopOnSignals } from '@bastion/messaging';
import { loadConfig } from '@bastion/platform';
import { ProxyConfig } from './config';
import { ProxyModule } from './proxy.module';

// Before anything else. A no-op unless OTEL_EXPORTER_OTLP_ENDPOINT is set; flushes on SIGTERM/SIGINT.
initTracing('message-proxy');

async function main(): Promise<void> {
  const config = loadConfig(ProxyConfig);
  const logger = createLogger('message-proxy', config.LOG_LEVEL);
  const metrics = new PlatformMetrics('message-proxy');
  const app = await startService(ProxyModule.forRoot(config, logger, metrics), {
    queue: PROXY_QUEUE,
    nats: natsLogin(config, 'message-proxy'),
    logger,
    metrics,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  });
  stopOnSignals(() => closeService(app), logger, config.SHUTDOWN_GRACE_MS);
  logger.info({ healthPort: config.HEALTH_PORT }, 'message proxy listening on NATS');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
