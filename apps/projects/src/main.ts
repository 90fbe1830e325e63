import 'reflect-metadata';
import { PROJECTS_QUEUE } from '@bastion/contracts';
import { createLogger, initTracing, PlatformMetrics } from '@bastion/observability';
import { natsLogin, closeService, startService, stopOnSignals } from '@bastion/messaging';
import { loadConfig } from '@bastion/platform';
import { ProjectsConfig } from './config';
import { ProjectsModule } from './projects.module';

// Before anything else. A no-op unless OTEL_EXPORTER_OTLP_ENDPOINT is set; flushes on SIGTERM/SIGINT.
initTracing('projects');

async function main(): Promise<void> {
  const config = loadConfig(ProjectsConfig);
  const logger = createLogger('projects', config.LOG_LEVEL);
  const metrics = new PlatformMetrics('projects');
  const app = await startService(ProjectsModule.forRoot(config, logger, metrics), {
    queue: PROJECTS_QUEUE,
    nats: natsLogin(config, 'projects'),
    logger,
    metrics,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
  });
  stopOnSignals(() => closeService(app), logger, config.SHUTDOWN_GRACE_MS);
  logger.info({ healthPort: config.HEALTH_PORT }, 'projects service listening on NATS');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
