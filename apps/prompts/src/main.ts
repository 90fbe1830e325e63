import 'reflect-metadata';
import { PROMPTS_QUEUE } from '@bastion/contracts';
import { createLogger, loadConfig, PlatformMetrics, startService } from '@bastion/platform';
import { PromptsConfig } from './config';
import { PromptsModule } from './prompts.module';

async function main(): Promise<void> {
  const config = loadConfig(PromptsConfig);
  const logger = createLogger('prompts', config.LOG_LEVEL);
  const metrics = new PlatformMetrics('prompts');
  await startService(PromptsModule.forRoot(config, logger, metrics), {
    queue: PROMPTS_QUEUE,
    natsUrl: config.NATS_URL,
    logger,
    metrics,
  });
  logger.info({ healthPort: config.HEALTH_PORT }, 'prompts service listening on NATS');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
