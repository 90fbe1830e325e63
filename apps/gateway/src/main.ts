import 'reflect-metadata';
import { createLogger, initTracing } from '@bastion/observability';
import { loadConfig } from '@bastion/platform';
import { stopOnSignals } from '@bastion/messaging';
import { createGateway } from './bootstrap';
import { GatewayConfig } from './config';

// Before anything else. A no-op unless OTEL_EXPORTER_OTLP_ENDPOINT is set; flushes on SIGTERM/SIGINT.
initTracing('gateway');

async function main(): Promise<void> {
  const config = loadConfig(GatewayConfig);
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const app = await createGateway(config, logger);
  await app.listen(config.GATEWAY_PORT, config.GATEWAY_HOST);
  // SIGTERM: /readyz?self turns 503, requests and streams in flight finish (new requests on kept-alive
  // connections get a 503 with Retry-After and the connection closes), then NATS drains.
  stopOnSignals(() => app.close(), logger, config.SHUTDOWN_GRACE_MS);
  logger.info(
    { port: config.GATEWAY_PORT },
    `gateway listening on http://${config.GATEWAY_HOST}:${config.GATEWAY_PORT}`,
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
