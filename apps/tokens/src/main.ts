import 'reflect-metadata';
import { TOKENS_QUEUE } from '@bastion/contracts';
import { createLogger, createServiceApp, loadConfig } from '@bastion/platform';
import { TokensConfig } from './config';
import { TokensModule } from './tokens.module';

async function main(): Promise<void> {
  const config = loadConfig(TokensConfig);
  const logger = createLogger('tokens', config.LOG_LEVEL);
  const app = await createServiceApp(TokensModule.forRoot(config, logger), { queue: TOKENS_QUEUE, natsUrl: config.NATS_URL, logger });
  await app.listen();
  logger.info('tokens service listening on NATS');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
