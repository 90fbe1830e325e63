import type {
  GetResponseFormat,
  ObjectGetMeta,
  ObjectRef,
  StatusObject,
  SystemObjectGetMeta,
  TokenCreateResponse,
  TokenGetResponse,
  TokenGetSpec,
  TokenListItem,
  TokenObjectChangeResponse,
} from '@bastion/contracts';
import { uidStandIn } from '../domain/secret-access';
import type { Token } from '../generated/prisma/client';

/**
 * Turns a stored token into the wire shapes of the token API. Defaults are always written
 * (`""`, `false`, `{}`), unset objects are `null`, and enums are names.
 *
 * `reveal` says whether the caller may read the token's admission secrets (domain/secret-access):
 * a NORMAL token's uid, which admits a site by itself, and a JWT token's JWT (`spec.content`). When
 * it may not, every field that would carry one is present: the uid as its stand-in (uidStandIn, a
 * UUID of its own per token that admits nothing), the JWT as `""`, a string's default value on
 * this wire, so the response keeps its shape.
 */
export const TOKEN_KIND = 'token';
const SERVICE_NAME = 'tokens';

/** The token's uid, or its stand-in for a caller who may not read admission secrets. */
function shownUid(t: Token, reveal: boolean): string {
  return reveal ? t.uid : uidStandIn(t.uid);
}

function strMap(value: unknown): Record<string, string> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
}

export function objectMeta(t: Token): ObjectGetMeta {
  return {
    name: t.name,
    namespace: t.namespace,
    labels: strMap(t.labels),
    annotations: strMap(t.annotations),
    description: t.description,
    disable: t.disable,
  };
}

export function systemMeta(t: Token, reveal: boolean): SystemObjectGetMeta {
  return {
    creation_timestamp: t.createdAt.toISOString(),
    creator_class: t.creatorClass,
    creator_id: t.creatorId,
    deletion_timestamp: null,
    finalizers: [],
    initializers: { pending: [], result: null },
    labels: {},
    modification_timestamp: t.modifiedAt ? t.modifiedAt.toISOString() : null,
    object_index: 0,
    owner_view: null,
    tenant: t.tenant,
    uid: shownUid(t, reveal),
  };
}

export function getSpec(t: Token, reveal: boolean): TokenGetSpec {
  return {
    state: t.state,
    type: t.type,
    content: reveal ? t.content : '',
    site_name: t.siteName,
    expiration_timestamp: t.expiresAt ? t.expiresAt.toISOString() : null,
    max_registrations: t.maxRegistrations,
    used_registrations: t.usedRegistrations,
  };
}

export function objectRef(t: Token, reveal: boolean): ObjectRef {
  return { kind: TOKEN_KIND, name: t.name, namespace: t.namespace, tenant: t.tenant, uid: shownUid(t, reveal) };
}

/** The token's state as a status object with one condition, for `GET_RSP_FORMAT_STATUS` and `status_set`. */
export function statusObject(t: Token, reveal: boolean): StatusObject {
  const at = (t.modifiedAt ?? t.createdAt).toISOString();
  const usable = t.state === 'VALID' && !t.disable;
  return {
    metadata: {
      creation_timestamp: at,
      creator_class: t.creatorClass,
      creator_id: t.creatorId,
      publish: 'STATUS_DO_NOT_PUBLISH',
      // The status id is named after the uid (or its stand-in).
      status_id: `${shownUid(t, reveal)}-state`,
      uid: shownUid(t, reveal),
      vtrp_id: '',
      vtrp_stale: false,
    },
    conditions: [
      {
        type: 'Admission',
        status: usable ? 'True' : 'False',
        reason: t.disable ? 'DISABLED' : t.state,
        hostname: '',
        service_name: SERVICE_NAME,
        last_update_time: at,
      },
    ],
    object_refs: [objectRef(t, reveal)],
  };
}

/** Only a caller the policy lets create a token gets here, so the new token's secret is always in it. */
export function createResponse(t: Token): TokenCreateResponse {
  return { metadata: objectMeta(t), system_metadata: systemMeta(t, true), spec: getSpec(t, true) };
}

export function getResponse(
  t: Token,
  reveal: boolean,
  format: GetResponseFormat,
  referring: ObjectRef[],
): TokenGetResponse {
  return {
    create_form:
      format === 'GET_RSP_FORMAT_FOR_CREATE'
        ? {
            metadata: objectMeta(t),
            spec: {
              type: t.type,
              site_name: t.siteName,
              expiration_timestamp: t.expiresAt ? t.expiresAt.toISOString() : null,
              max_registrations: t.maxRegistrations,
            },
          }
        : null,
    replace_form: format === 'GET_RSP_FORMAT_FOR_REPLACE' ? { metadata: objectMeta(t), spec: {} } : null,
    metadata: objectMeta(t),
    system_metadata: systemMeta(t, reveal),
    spec: getSpec(t, reveal),
    status: format === 'GET_RSP_FORMAT_STATUS' ? [statusObject(t, reveal)] : [],
    referring_objects: format === 'GET_RSP_FORMAT_REFERRING_OBJECTS' ? referring : [],
    // A token refers to no other object, so it can have no broken references.
    deleted_referred_objects: [],
    disabled_referred_objects: [],
  };
}

export function listItem(t: Token, reveal: boolean, reportFields: boolean, reportStatusFields: boolean): TokenListItem {
  return {
    tenant: t.tenant,
    namespace: t.namespace,
    name: t.name,
    uid: shownUid(t, reveal),
    description: t.description,
    disabled: t.disable,
    labels: strMap(t.labels),
    annotations: strMap(t.annotations),
    owner_view: null,
    metadata: reportFields ? objectMeta(t) : null,
    system_metadata: reportFields ? systemMeta(t, reveal) : null,
    get_spec: reportFields ? getSpec(t, reveal) : null,
    status_set: reportStatusFields ? [statusObject(t, reveal)] : [],
  };
}

export function objectChangeResponse(t: Token, reveal: boolean): TokenObjectChangeResponse {
  return {
    obj: {
      metadata: { ...objectMeta(t), uid: shownUid(t, reveal) },
      system_metadata: {
        ...systemMeta(t, reveal),
        creator_cookie: '',
        direct_ref_hash: '',
        namespace: [],
        revision: String(t.revision),
        sre_disable: false,
        trace_info: '',
        vtrp_id: '',
        vtrp_stale: false,
      },
      spec: { gc_spec: getSpec(t, reveal) },
    },
  };
}
