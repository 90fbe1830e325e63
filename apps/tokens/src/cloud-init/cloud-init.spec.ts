import { parse } from 'yaml';
import type { AdmissionToken } from '../domain/admission-rules';
import { cloudInitProvider, renderCloudInit, reusableSiteJwt } from './cloud-init';

describe('renderCloudInit', () => {
  it('is a #cloud-config document that writes the token to /etc/vpm/user_data', () => {
    const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const text = renderCloudInit(jwt);
    expect(text.split('\n')[0]).toBe('#cloud-config');
    const doc = parse(text);
    expect(doc.write_files).toEqual([
      { path: '/etc/vpm/user_data', owner: 'root:root', permissions: '0600', content: `token: ${jwt}\n` },
    ]);
    expect(parse(doc.write_files[0].content)).toEqual({ token: jwt });
  });
});

describe('cloudInitProvider', () => {
  it('takes the public site providers, in any case', () => {
    for (const p of ['kvm', 'aws', 'azure', 'gcp', 'vmware', 'openstack', 'nutanix', 'baremetal'])
      expect(cloudInitProvider(p)).toBe(p);
    expect(cloudInitProvider('AWS')).toBe('aws');
  });

  it('refuses anything else', () => {
    for (const p of ['', 'xen', 'kvm2', 'aw s', 'toString']) expect(cloudInitProvider(p)).toBeUndefined();
  });
});

describe('reusableSiteJwt', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const jwt = (over: Partial<AdmissionToken & { content: string }> = {}) => ({
    uid: 'u',
    tenant: 't',
    namespace: 'system',
    name: 'n',
    state: 'VALID' as const,
    disable: false,
    type: 'JWT' as const,
    siteName: 'paris-1',
    contentHash: 'h',
    content: 'a.b.c',
    expiresAt: null,
    maxRegistrations: null,
    usedRegistrations: 0,
    revision: 1,
    ...over,
  });

  it('takes the first usable JWT token bound to the site', () => {
    const tokens = [jwt({ name: 'newest' }), jwt({ name: 'older' })];
    expect(reusableSiteJwt(tokens, 'paris-1', now)?.name).toBe('newest');
  });

  it('skips tokens that would not admit the site, other sites, unbound tokens and NORMAL tokens', () => {
    const unusable = [
      jwt({ state: 'EXPIRED' }),
      jwt({ state: 'UNKNOWN' }),
      jwt({ disable: true }),
      jwt({ expiresAt: new Date('2025-12-31T00:00:00Z') }),
      jwt({ maxRegistrations: 1, usedRegistrations: 1 }),
      jwt({ siteName: 'lyon-1' }),
      jwt({ siteName: '' }),
      jwt({ type: 'NORMAL', content: '' }),
    ];
    expect(reusableSiteJwt(unusable, 'paris-1', now)).toBeUndefined();
    expect(reusableSiteJwt([...unusable, jwt({ name: 'ok' })], 'paris-1', now)?.name).toBe('ok');
  });

  it('with no site named, reuses only a token bound to no site', () => {
    expect(reusableSiteJwt([jwt()], '', now)).toBeUndefined();
    expect(reusableSiteJwt([jwt({ siteName: '', name: 'any' })], '', now)?.name).toBe('any');
  });
});
