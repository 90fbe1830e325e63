import type { INestMicroservice } from '@nestjs/common';
import { PROJECTS_QUEUE } from '@bastion/contracts';
import type { Logger } from 'pino';
import { ProjectsConfig, ProjectsModule } from '../../apps/projects/src';
import { quietLogger, startTestService } from './stack';

/** Starts one projects-service instance on the test database and NATS. */
export function startProjectsService(
  env: Record<string, string> = {},
  logger: Logger = quietLogger('projects'),
): Promise<INestMicroservice> {
  return startTestService(
    {
      service: 'projects',
      queue: PROJECTS_QUEUE,
      config: ProjectsConfig,
      module: (c, l, m) => ProjectsModule.forRoot(c, l, m),
    },
    env,
    logger,
  );
}
