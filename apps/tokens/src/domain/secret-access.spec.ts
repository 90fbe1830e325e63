import { principal } from '@bastion/testing';
import { readsAdmissionSecrets } from './secret-access';

describe('readsAdmissionSecrets', () => {
  it('is what the policy lets create a token: members and admins, by JWT or tenant key', () => {
    for (const role of ['member', 'admin'] as const) {
      expect(readsAdmissionSecrets(principal(role))).toBe(true);
      expect(readsAdmissionSecrets(principal(role, { credential: 'key' }))).toBe(true);
    }
  });

  it('is refused to a viewer, whether by JWT or by API key', () => {
    expect(readsAdmissionSecrets(principal('viewer'))).toBe(false);
    expect(readsAdmissionSecrets(principal('viewer', { credential: 'key' }))).toBe(false);
  });

  it('is refused to a project-scoped principal, whatever its role', () => {
    expect(readsAdmissionSecrets(principal('admin', { project: 'p1' }))).toBe(false);
    expect(readsAdmissionSecrets(principal('admin', { project: 'p1', credential: 'key' }))).toBe(false);
  });
});
