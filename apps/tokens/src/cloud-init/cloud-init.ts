import { stringify } from 'yaml';

export const CLOUD_INIT_PROVIDERS = ['kvm'] as const;

/**
 * The `#cloud-config` a kvm site boots with: it writes /etc/vpm/user_data holding the site's token
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
