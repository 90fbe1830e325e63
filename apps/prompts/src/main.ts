import 'reflect-metadata';
import { PROMPTS_QUEUE } from '@bastion/contracts';
import { createLogger, initTracing, PlatformMetrics } from '@bastion/observability';
import { natsLogin, closeService, startService, stopOnSignals } from '@bastion/messaging';
import { loadConfig } from '@bastion/platform';
import { PromptsConfig } from './config';
import { PromptsModule } from './prompts.module';

// Before anything else. A no-op unless OTEL_EXPORTER_OTLP_ENDPOINT is set; flushes on SIGTERM/SIGINT.
initTracing('prompts');

async function main(): Promise<void> {
  const config = loadConfig(PromptsConfig);
  const logger = createLogger('prompts', config.LOG_LEVEL);
  const metrics = new PlatformMetrics('prompts');
  const app = await startService(PromptsModule.forRoot(config, logger, metrics), {
    queue: PROMPTS_QUEUE,
    nats: natsLogin(config, 'prompts'),
    logger,
    metrics,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  });
  stopOnSignals(() => closeService(app), logger, config.SHUTDOWN_GRACE_MS);
  logger.info({ healthPort: config.HEALTH_PORT }, 'prompts service listening on NATS');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
