import 'reflect-metadata';
import { PROVIDERS_QUEUE } from '@bastion/contracts';
import { createLogger, initTracing, PlatformMetrics } from '@bastion/observability';
import { natsLogin, closeService, startService, stopOnSignals } from '@bastion/messaging';
import { loadConfig } from '@bastion/platform';
import { ProvidersConfig } from './config';
import { ProvidersModule } from './providers.module';

// Before anything else. A no-op unless OTEL_EXPORTER_OTLP_ENDPOINT is set; flushes on SIGTERM/SIGINT.
initTracing('providers');

async function main(): Promise<void> {
  const config = loadConfig(ProvidersConfig);
  const logger = createLogger('providers', config.LOG_LEVEL);
  const metrics = new PlatformMetrics('providers');
  const app = await startService(ProvidersModule.forRoot(config, logger, metrics), {
    queue: PROVIDERS_QUEUE,
    nats: natsLogin(config, 'providers'),
    logger,
    metrics,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  });
  stopOnSignals(() => closeService(app), logger, config.SHUTDOWN_GRACE_MS);
  logger.info({ healthPort: config.HEALTH_PORT }, 'providers service listening on NATS');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
