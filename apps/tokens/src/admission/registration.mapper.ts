import type { RegistrationListItem, RegistrationObject, RegistrationSpec } from '@bastion/contracts';
import type { Registration } from '../generated/prisma/client';
import { uidStandIn } from '../domain/secret-access';
import { CREATOR_CLASS } from '../tokens/creator';

/**
 * `token_uid` is the uid of the token that admitted the site: for a NORMAL token, its secret. A
 * caller who may not read admission secrets (domain/secret-access) gets the stand-in its token
 * reads show them (uidStandIn).
 */
function spec(r: Registration, reveal: boolean): RegistrationSpec {
  return {
    state: 'ADMITTED',
    site_name: r.siteName,
    token_name: r.tokenName,
    token_uid: reveal ? r.tokenUid : uidStandIn(r.tokenUid),
    passport: (r.passport ?? {}) as Record<string, unknown>,
  };
}

function metadata(r: Registration) {
  return { name: r.name, namespace: r.namespace, labels: {}, annotations: {}, description: '', disable: false };
}

function systemMetadata(r: Registration) {
  return {
    creation_timestamp: r.createdAt.toISOString(),
    creator_class: CREATOR_CLASS,
    creator_id: `site:${r.siteName}`,
    deletion_timestamp: null,
    finalizers: [],
    initializers: { pending: [], result: null },
    labels: {},
    modification_timestamp: r.modifiedAt ? r.modifiedAt.toISOString() : null,
    object_index: 0,
    owner_view: null,
    tenant: r.tenant,
    uid: r.uid,
  };
}

/** The answer to the site that registered, with the token it presented. */
export function registrationObject(r: Registration): RegistrationObject {
  return { metadata: metadata(r), system_metadata: systemMetadata(r), spec: spec(r, true) };
}

export function registrationListItem(r: Registration, reveal: boolean, reportFields: boolean): RegistrationListItem {
  return {
    tenant: r.tenant,
    namespace: r.namespace,
    name: r.name,
    uid: r.uid,
    description: '',
    disabled: false,
    labels: {},
    annotations: {},
    owner_view: null,
    metadata: reportFields ? metadata(r) : null,
    system_metadata: reportFields ? systemMetadata(r) : null,
    get_spec: reportFields ? spec(r, reveal) : null,
    status_set: [],
  };
}
