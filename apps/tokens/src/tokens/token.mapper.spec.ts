import { randomUUID } from 'node:crypto';
import { GET_RESPONSE_FORMATS, type GetResponseFormat } from '@bastion/contracts';
import { registrationListItem } from '../admission/registration.mapper';
import { uidStandIn } from '../domain/secret-access';
import type { Registration, Token } from '../generated/prisma/client';
import { getResponse, listItem, objectChangeResponse } from './token.mapper';

const JWT = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

function row(over: Partial<Token> = {}): Token {
  return {
    uid: randomUUID(),
    tenant: 't1',
    namespace: 'system',
    name: 'edge',
    labels: {},
    annotations: {},
    description: '',
    disable: false,
    state: 'VALID',
    type: 'NORMAL',
    content: '',
    siteName: '',
    creatorClass: 'bastion-tokens',
    creatorId: 'admin@example.com',
    createdAt: new Date('2026-01-01T00:00:00Z'),
    modifiedAt: null,
    revision: 1,
    expiresAt: null,
    maxRegistrations: null,
    usedRegistrations: 0,
    ...over,
  };
}

const FORMATS: readonly GetResponseFormat[] = GET_RESPONSE_FORMATS;

/** Every response a token read answers with, for one token, as the caller may see it. */
function reads(t: Token, reveal: boolean): unknown[] {
  return [
    listItem(t, reveal, false, false),
    listItem(t, reveal, true, true),
    ...FORMATS.map((f) => getResponse(t, reveal, f, [])),
    objectChangeResponse(t, reveal),
  ];
}

/** The JSON paths of a value, so two responses can be compared by shape. */
function paths(value: unknown, at = ''): string[] {
  if (value === null || typeof value !== 'object') return [at];
  return Object.entries(value).flatMap(([k, v]) => paths(v, `${at}.${k}`));
}

describe('token reads and admission secrets', () => {
  const normal = row();
  const jwt = row({ type: 'JWT', content: JWT, name: 'site-jwt' });

  it("shows a NORMAL token's uid and a JWT token's JWT to a caller who may read secrets", () => {
    for (const res of reads(normal, true)) expect(JSON.stringify(res)).toContain(normal.uid);
    expect(listItem(jwt, true, true, false).get_spec?.content).toBe(JWT);
    expect(getResponse(jwt, true, 'GET_RSP_FORMAT_DEFAULT', []).spec.content).toBe(JWT);
  });

  it('carries neither secret anywhere for any other caller, in any read', () => {
    for (const t of [normal, jwt]) {
      for (const res of reads(t, false)) {
        const text = JSON.stringify(res);
        expect(text).not.toContain(t.uid);
        expect(text).not.toContain(JWT);
      }
    }
    const item = listItem(normal, false, true, true);
    expect(item.uid).toBe(uidStandIn(normal.uid));
    expect(item.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(item.system_metadata?.uid).toBe(item.uid);
    expect(listItem(jwt, false, true, false).get_spec?.content).toBe('');
    // Each token keeps an identity of its own.
    expect(listItem(jwt, false, true, true).uid).not.toBe(item.uid);
  });

  it('keeps the wire shape: the same fields, a uid stand-in and an empty JWT', () => {
    for (const t of [normal, jwt]) {
      const shown = reads(t, true);
      reads(t, false).forEach((hidden, i) => expect(paths(hidden)).toEqual(paths(shown[i])));
    }
  });

  it("hides a registration's token_uid (a NORMAL token's secret) behind the same stand-in", () => {
    const reg = {
      uid: randomUUID(),
      tenant: 't1',
      namespace: 'system',
      name: 'node-1',
      tokenUid: normal.uid,
      tokenName: 'edge',
      siteName: 'site-a',
      passport: {},
      createdAt: new Date(),
      modifiedAt: null,
    } as unknown as Registration;
    expect(registrationListItem(reg, true, true).get_spec?.token_uid).toBe(normal.uid);
    const hidden = registrationListItem(reg, false, true);
    expect(hidden.get_spec?.token_uid).toBe(uidStandIn(normal.uid));
    expect(JSON.stringify(hidden)).not.toContain(normal.uid);
  });
});
