import { DomainError, type Principal } from '@bastion/contracts';

/** A project-scoped principal sees only its project's records; others see the whole tenant. */
export function canSee(principal: Pick<Principal, 'project'>, projectId: string | null): boolean {
  return !principal.project || principal.project === projectId;
}

/**
 * The project a list is confined to: a project-scoped principal's own project, whatever it asked
 * for (asking for another project is refused rather than silently answered with nothing).
 */
export function projectScope(principal: Principal, requested: string | undefined): string | undefined {
  if (!principal.project) return requested;
  if (requested !== undefined && requested !== principal.project) throw outOfScope(requested);
  return principal.project;
}

/**
 * What a project-scoped principal hears of a project other than its own: that it is not found, as a
 * project that does not exist is, so the answer tells nothing of what other projects there are.
 */
export function outOfScope(project: string): DomainError {
  return DomainError.notFound(`project ${project} not found`);
}
