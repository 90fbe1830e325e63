import { ErrorCode, type Principal } from '@bastion/contracts';
import { requireRole } from '@bastion/contracts';
import { canSee, projectScope } from './access';

const tenantWide: Principal = { sub: 'u', tenant: 't', roles: ['viewer'] };
const scoped: Principal = { sub: 'u', tenant: 't', roles: ['member'], project: 'p1' };

describe('prompt access rules', () => {
  it('lets a tenant-wide principal see every project, a scoped one only its own', () => {
    expect(canSee(tenantWide, 'p2')).toBe(true);
    expect(canSee(tenantWide, null)).toBe(true);
    expect(canSee(scoped, 'p1')).toBe(true);
    expect(canSee(scoped, 'p2')).toBe(false);
    expect(canSee(scoped, null)).toBe(false);
  });

  it("confines a scoped principal's list to its project and refuses another as not found", () => {
    expect(projectScope(tenantWide, undefined)).toBeUndefined();
    expect(projectScope(tenantWide, 'p2')).toBe('p2');
    expect(projectScope(scoped, undefined)).toBe('p1');
    expect(projectScope(scoped, 'p1')).toBe('p1');
    // Another project is not found, in the words a made-up one gets.
    for (const other of ['p2', 'no-such-project'])
      expect(() => projectScope(scoped, other)).toThrow(
        expect.objectContaining({ code: ErrorCode.NOT_FOUND, message: `project ${other} not found` }),
      );
  });

  it('ranks roles: a viewer cannot do what needs a member', () => {
    expect(() => requireRole(tenantWide, 'member')).toThrow(
      expect.objectContaining({ code: ErrorCode.PERMISSION_DENIED }),
    );
    expect(() => requireRole(scoped, 'member')).not.toThrow();
    expect(() => requireRole({ ...tenantWide, roles: ['admin'] }, 'member')).not.toThrow();
  });
});
