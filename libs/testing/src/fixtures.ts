import type { Principal, Role, ScannerResultRecord } from '@bastion/contracts';
import { uniqueTenant } from './tokens';

/**
 * The caller a NATS command carries (what the gateway puts in `principal`), for specs that call a
 * service directly. A fresh tenant unless one is given.
 */
export function principal(role: Role = 'admin', overrides: Partial<Principal> = {}): Principal {
  return { sub: 'spec-user@example.com', tenant: overrides.tenant ?? uniqueTenant(), roles: [role], ...overrides };
}

/** The body of a token create (POST .../tokens), as ves.io.schema.token clients send it. */
export function tokenCreateBody(
  name: string,
  options: { namespace?: string; labels?: Record<string, string>; spec?: Record<string, unknown> } = {},
) {
  return {
    metadata: {
      name,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      ...(options.labels ? { labels: options.labels } : {}),
    },
    spec: options.spec ?? {},
  };
}

/**
 * One scanner result as a prompt record carries it: a regex scanner that passed a request, with no
 * version meta, unless `overrides` say otherwise.
 */
export function scannerResultRecord(overrides: Partial<ScannerResultRecord> = {}): ScannerResultRecord {
  return {
    scannerId: 'scanner',
    outcome: 'passed',
    scanDirection: 'request',
    data: { type: 'regex', matches: [] },
    message: '',
    customConfig: false,
    startedDate: '2026-03-01T10:00:00.000Z',
    completedDate: '2026-03-01T10:00:00.001Z',
    scannerVersionMeta: null,
    ...overrides,
  };
}
