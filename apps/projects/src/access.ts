import { DomainError, type Principal, requireRole, type Role } from '@bastion/contracts';

/**
 * Who may do what: viewer reads, member writes, admin also deletes. A token scoped to a project
 * may only read that project, so every other operation refuses it.
 */
export function authorize(principal: Principal, role: Role): void {
  if (principal.project !== undefined) {
    throw DomainError.permissionDenied(`this token is scoped to project ${principal.project}: it may only read that project`);
  }
  requireRole(principal, role);
}

