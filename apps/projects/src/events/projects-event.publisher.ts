import { Injectable } from '@nestjs/common';
import {
  type ProjectChange,
  type ProjectChangedEvent,
  ProjectEventContracts,
  type ScannerChange,
  type ScannerChangedEvent,
} from '@bastion/contracts';
import { EventPublisher } from '@bastion/messaging';
import type { Project, Scanner } from '../generated/prisma/client';

/** Publishes the service's changes to the PROJECTS stream, for caches of projects and scanners. */
@Injectable()
export class ProjectsEventPublisher {
  constructor(private readonly events: EventPublisher) {}

  projectChanged(p: Project, change: ProjectChange): Promise<void> {
    const event: ProjectChangedEvent = {
      id: p.id,
      tenant: p.tenant,
      name: p.name,
      change,
      revision: p.revision,
      deploymentStatus: p.deploymentStatus,
      occurredAt: new Date().toISOString(),
    };
    return this.events.publish(ProjectEventContracts.projectChanged, event);
  }

  scannerChanged(
    s: Scanner,
    change: ScannerChange,
    projectIds: string[],
    versionId: string | null = null,
  ): Promise<void> {
    const event: ScannerChangedEvent = {
      id: s.id,
      tenant: s.tenant ?? '',
      change,
      versionId,
      latestVersionId: s.latestVersionId,
      projectIds,
      occurredAt: new Date().toISOString(),
    };
    return this.events.publish(ProjectEventContracts.scannerChanged, event);
  }
}
