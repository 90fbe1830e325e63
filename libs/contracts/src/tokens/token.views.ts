import type { TokenState, TokenType } from './token.enums';

/** Response shapes of the token API, field for field as F5 XC's public token API (`ves.io.schema.token`) names them. */

export interface ObjectGetMeta {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  description: string;
  disable: boolean;
}

export interface ObjectMeta extends ObjectGetMeta {
  uid: string;
}

export interface ViewRef {
  kind: string;
  name: string;
  namespace: string;
  uid: string;
}

export interface ObjectRef {
  kind: string;
  name: string;
  namespace: string;
  tenant: string;
  uid: string;
}

export interface StatusType {
  code: number;
  reason: string;
  status: string;
}

export interface SystemObjectGetMeta {
  creation_timestamp: string;
  creator_class: string;
  creator_id: string;
  deletion_timestamp: string | null;
  finalizers: string[];
  initializers: { pending: { name: string }[]; result: StatusType | null };
  labels: Record<string, string>;
  modification_timestamp: string | null;
  object_index: number;
  owner_view: ViewRef | null;
  tenant: string;
  uid: string;
}

export interface SystemObjectMeta extends SystemObjectGetMeta {
  creator_cookie: string;
  direct_ref_hash: string;
  namespace: ObjectRef[];
  revision: string;
  sre_disable: boolean;
  trace_info: string;
  vtrp_id: string;
  vtrp_stale: boolean;
}

export interface TokenGetSpec {
  state: TokenState;
  type: TokenType;
  content: string;
  site_name: string;
  /** Extension: null when the token does not expire. */
  expiration_timestamp: string | null;
  /** Extension: null when unlimited. */
  max_registrations: number | null;
  /** Extension: sites admitted since the token was last made VALID. */
  used_registrations: number;
}

export interface StatusObject {
  metadata: {
    creation_timestamp: string;
    creator_class: string;
    creator_id: string;
    publish: 'STATUS_DO_NOT_PUBLISH' | 'STATUS_PUBLISH';
    status_id: string;
    uid: string;
    vtrp_id: string;
    vtrp_stale: boolean;
  };
  conditions: {
    type: string;
    status: string;
    reason: string;
    hostname: string;
    service_name: string;
    last_update_time: string;
  }[];
  object_refs: ObjectRef[];
}

export interface TokenCreateForm {
  metadata: ObjectGetMeta;
  spec: { type: TokenType; site_name: string; expiration_timestamp: string | null; max_registrations: number | null };
}

export interface TokenReplaceForm {
  metadata: ObjectGetMeta;
  spec: Record<string, never>;
}

export interface TokenCreateResponse {
  metadata: ObjectGetMeta;
  system_metadata: SystemObjectGetMeta;
  spec: TokenGetSpec;
}

export interface TokenGetResponse {
  create_form: TokenCreateForm | null;
  replace_form: TokenReplaceForm | null;
  metadata: ObjectGetMeta;
  system_metadata: SystemObjectGetMeta;
  spec: TokenGetSpec;
  status: StatusObject[];
  referring_objects: ObjectRef[];
  deleted_referred_objects: ObjectRef[];
  disabled_referred_objects: ObjectRef[];
}

export interface TokenListItem {
  tenant: string;
  namespace: string;
  name: string;
  uid: string;
  description: string;
  disabled: boolean;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  owner_view: ViewRef | null;
  metadata: ObjectGetMeta | null;
  system_metadata: SystemObjectGetMeta | null;
  get_spec: TokenGetSpec | null;
  status_set: StatusObject[];
}

export interface TokenListResponse {
  items: TokenListItem[];
  errors: { code: string; message: string; error_obj: { type_url: string; value: string } | null }[];
}

export interface TokenObjectChangeResponse {
  obj: {
    metadata: ObjectMeta;
    system_metadata: SystemObjectMeta;
    spec: { gc_spec: TokenGetSpec };
  };
}
