import type { ObjectGetMeta, SystemObjectGetMeta } from '../tokens/token.views';

export interface RegistrationSpec {
  state: 'ADMITTED';
  site_name: string;
  token_name: string;
  token_uid: string;
  passport: Record<string, unknown>;
}

export interface RegistrationObject {
  metadata: ObjectGetMeta;
  system_metadata: SystemObjectGetMeta;
  spec: RegistrationSpec;
}

export interface RegistrationListItem {
  tenant: string;
  namespace: string;
  name: string;
  uid: string;
  description: string;
  disabled: boolean;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  owner_view: null;
  metadata: ObjectGetMeta | null;
  system_metadata: SystemObjectGetMeta | null;
  get_spec: RegistrationSpec | null;
  status_set: [];
}

export interface RegistrationListResponse {
  items: RegistrationListItem[];
  errors: [];
}

export interface Jwks {
  keys: Record<string, unknown>[];
}
