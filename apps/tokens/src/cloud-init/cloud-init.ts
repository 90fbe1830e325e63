import { type AdmissionToken, decideAdmission } from '../domain/admission-rules';
import { stringify } from 'yaml';

/**
 * The site providers of the public API whose images boot from the same cloud-init document: the
 * site's image keeps its own /etc/vpm/config.yaml and reads its token from /etc/vpm/user_data.
 */
export const CLOUD_INIT_PROVIDERS = [
  'kvm',
  'vmware',
  'aws',
  'azure',
  'gcp',
  'openstack',
  'nutanix',
  'baremetal',
] as const;

export type CloudInitProvider = (typeof CLOUD_INIT_PROVIDERS)[number];

/** The provider as a supported name (case-insensitive), or undefined when it is not one. */
export function cloudInitProvider(provider: string): CloudInitProvider | undefined {
  const name = provider.trim().toLowerCase();
  return (CLOUD_INIT_PROVIDERS as readonly string[]).includes(name) ? (name as CloudInitProvider) : undefined;
}

/**
 * The `#cloud-config` a site boots with (the same for every supported provider): it writes /etc/vpm/user_data holding the site's token
 * (the image keeps its own /etc/vpm/config.yaml). Built as data and serialised by a YAML library,
 * so the JWT can never break the document's syntax.
 */
export function renderCloudInit(jwt: string): string {
  const doc = {
    write_files: [
      {
        path: '/etc/vpm/user_data',
        owner: 'root:root',
        permissions: '0600',
        content: `token: ${jwt}\n`,
      },
    ],
  };
  return `#cloud-config\n${stringify(doc, { lineWidth: 0 })}`;
}

/**
 * Of a site's JWT tokens (newest first), the one whose JWT a cloud-init may hand out again: a JWT
 * token bound to exactly this site (or, with no site named, bound to none) that would admit the
 * site now. Undefined when there is none and a new token must be issued.
 */
export function reusableSiteJwt<T extends AdmissionToken & { content: string }>(
  tokens: readonly T[],
  siteName: string,
  now: Date,
): T | undefined {
  return tokens.find(
    (t) => t.type === 'JWT' && t.content !== '' && t.siteName === siteName && decideAdmission(t, siteName, now).admit,
  );
}
