import 'reflect-metadata';
import { TOKENS_QUEUE } from '@bastion/contracts';
import { createLogger, initTracing, PlatformMetrics } from '@bastion/observability';
import { natsLogin, closeService, startService, stopOnSignals } from '@bastion/messaging';
import { loadConfig } from '@bastion/platform';
import { TokensConfig } from './config';
import { TokensModule } from './tokens.module';

// Before anything else. A no-op unless OTEL_EXPORTER_OTLP_ENDPOINT is set; flushes on SIGTERM/SIGINT.
initTracing('tokens');

async function main(): Promise<void> {
  const config = loadConfig(TokensConfig);
  const logger = createLogger('tokens', config.LOG_LEVEL);
  const metrics = new PlatformMetrics('tokens');
  const app = await startService(TokensModule.forRoot(config, logger, metrics), {
    queue: TOKENS_QUEUE,
    nats: natsLogin(config, 'tokens'),
    logger,
    metrics,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  });
  stopOnSignals(() => closeService(app), logger, config.SHUTDOWN_GRACE_MS);
  logger.info({ healthPort: config.HEALTH_PORT }, 'tokens service listening on NATS');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
