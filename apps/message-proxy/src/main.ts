import 'reflect-metadata';
import { PROXY_QUEUE } from '@bastion/contracts';
import { createLogger, initTracing, PlatformMetrics } from '@bastion/observability';
import { natsLogin, closeService, startService, stopOnSignals } from '@bastion/messaging';
import { loadConfig } from '@bastion/platform';
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { laneFilter, laneNice, ProxyConfig } from './config';
import { enterIdleClass } from './idle-class';
import { ProxyModule } from './proxy.module';

// Before anything else. A no-op unless OTEL_EXPORTER_OTLP_ENDPOINT is set; flushes on SIGTERM/SIGINT.
initTracing('message-proxy');

async function main(): Promise<void> {
  const config = loadConfig(ProxyConfig);
  const logger = createLogger('message-proxy', config.LOG_LEVEL);
  const nice = laneNice(config);
  if (nice > 0) lowerPriority(nice, logger);
  if (config.PROXY_SCHED === 'idle') {
    try {
      enterIdleClass(process.pid);
      logger.info({ sched: 'idle' }, 'running in the idle scheduling class');
    } catch (err) {
      logger.warn({ err }, 'could not move to the idle scheduling class (chrt); running at the nice value alone');
    }
  }
  const metrics = new PlatformMetrics('message-proxy');
  const app = await startService(ProxyModule.forRoot(config, logger, metrics), {
    queue: PROXY_QUEUE,
    nats: natsLogin(config, 'message-proxy'),
    logger,
    metrics,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    answers: laneFilter(config.PROXY_LANE),
  });
  stopOnSignals(() => closeService(app), logger, config.SHUTDOWN_GRACE_MS);
  logger.info({ healthPort: config.HEALTH_PORT, lane: config.PROXY_LANE }, 'message proxy listening on NATS');
}

/**
 * Lowers the priority of every thread the process has (Linux keeps a nice value per thread; V8's
 * and libuv's helpers already run), and of those it makes later, which inherit it.
 */
function lowerPriority(nice: number, logger: ReturnType<typeof createLogger>): void {
  let threads: number[] = [0];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // No /proc: this thread alone, and the threads it makes from now on.
  }
  let lowered = 0;
  for (const tid of threads) {
    try {
      setPriority(tid, nice);
      lowered++;
    } catch {
      // A thread that ended meanwhile, or a system that refuses: the others still go lower.
    }
  }
  if (lowered > 0) logger.info({ nice, threads: lowered }, 'running below the default CPU priority');
  else logger.warn({ nice }, 'could not lower the CPU priority');
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
