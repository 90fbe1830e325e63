import type { DeploymentStatus, ProjectView } from '@bastion/contracts';
import { countsOf, publicLists, type StoredProjectConfig } from '../domain/project-config';
import type { Project } from '../generated/prisma/client';

/** A config revision as the view needs it: the project's current one, or one found by `configAt`. */
export interface ConfigRevision {
  id: string;
  revision: number;
  validFrom: Date;
  config: StoredProjectConfig;
}

export function currentRevision(p: Project): ConfigRevision {
  return {
    id: p.configId,
    revision: p.revision,
    validFrom: p.configValidFrom,
    config: p.config as unknown as StoredProjectConfig,
  };
}

/**
 * The spec's Project. Counts come from the config shown (so `configAt` counts what was attached
 * then); admins, members and agent sessions live outside the platform: 0. `tokenCount` counts the
 * project's API keys.
 */
export function projectView(p: Project, rev: ConfigRevision, tokenCount = 0): ProjectView {
  return {
    id: p.id,
    friendlyId: p.friendlyId,
    name: p.name,
    type: p.type,
    botType: p.botType,
    chatbotId: p.chatbotId,
    adminRoleId: p.adminRoleId,
    memberRoleId: p.memberRoleId,
    createdBy: p.createdBy,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    adminCount: 0,
    agentSessionCount: 0,
    memberCount: 0,
    ...countsOf(rev.config),
    tokenCount,
    deploymentStatus: p.deploymentStatus as DeploymentStatus,
    config: { id: rev.id, revision: rev.revision, validFrom: rev.validFrom.toISOString(), ...publicLists(rev.config) },
  };
}
