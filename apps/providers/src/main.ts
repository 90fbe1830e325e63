import 'reflect-metadata';
import { PROVIDERS_QUEUE } from '@bastion/contracts';
import { createLogger, createServiceApp, loadConfig } from '@bastion/platform';
import { ProvidersConfig } from './config';
import { ProvidersModule } from './providers.module';

async function main(): Promise<void> {
  const config = loadConfig(ProvidersConfig);
  const logger = createLogger('providers', config.LOG_LEVEL);
  const app = await createServiceApp(ProvidersModule.forRoot(config, logger), { queue: PROVIDERS_QUEUE, natsUrl: config.NATS_URL, logger });
  await app.listen();
  logger.info('providers service listening on NATS');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
