import type { INestMicroservice } from '@nestjs/common';
import { PROJECTS_QUEUE } from '@bastion/contracts';
import { loadConfig, PlatformMetrics, startService } from '@bastion/platform';
import type { Logger } from 'pino';
import { ProjectsConfig, ProjectsModule } from '../../apps/projects/src';
import { quietLogger, testEnv } from './stack';

/** Starts one projects-service instance on the test database and NATS. */
export async function startProjectsService(env: Record<string, string> = {}, logger: Logger = quietLogger('projects')): Promise<INestMicroservice> {
  const config = loadConfig(ProjectsConfig, { ...process.env, ...testEnv(), HEALTH_PORT: '0', ...env });
  const metrics = new PlatformMetrics('projects');
  return startService(ProjectsModule.forRoot(config, logger, metrics), {
    queue: PROJECTS_QUEUE,
    natsUrl: config.NATS_URL,
    logger,
    metrics,
  });
}
