import { DomainError, ErrorCode } from '@bastion/contracts';
import {
  buildGuardrailEntry,
  buildProviderEntry,
  changeGuardrailEntry,
  changeProviderEntry,
  checkLists,
  countsOf,
  EMPTY_CONFIG,
  type GuardrailTarget,
  publicLists,
  withChangedEntry,
  withEntry,
  withoutEntry,
} from './project-config';

const S = '11111111-1111-4111-8111-111111111111';
const P1 = '22222222-2222-4222-8222-222222222222';
const P2 = '33333333-3333-4333-8333-333333333333';
const V1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const V2 = 'aaaaaaaa-0000-4000-8000-000000000002';

const target: GuardrailTarget = {
  id: S,
  name: 'SSN',
  kind: 'scanner',
  latestVersionId: V2,
  versions: [
    { id: V1, name: 'v_1', number: 1, published: true, direction: 'request' },
    { id: V2, name: 'v_2', number: 2, published: false, direction: 'both' },
  ],
};
const loc = ['body'];

function codeOf(fn: () => unknown): { code: ErrorCode; loc?: string[]; message: string } {
  try {
    fn();
  } catch (e) {
    const d = e as DomainError;
    return { code: d.code, loc: d.details[0]?.loc, message: d.message };
  }
  throw new Error('no error');
}

describe('buildGuardrailEntry', () => {
  it('defaults to an enabled, blocking block-mode entry that follows the scanner, in its running direction', () => {
    expect(buildGuardrailEntry({ id: S }, target, 'scanners', loc)).toEqual({
      id: S,
      version: 'latest',
      versionId: null,
      enabled: true,
      blocking: true,
      force: false,
      mode: 'block',
      flagMessage: '',
      // v_2 is the latest but unpublished: v_1 runs, so its direction is the default.
      direction: 'request',
    });
  });

  it('pins a published version by name or id and keeps what was given', () => {
    const e = buildGuardrailEntry(
      { id: S, version: V1, mode: 'redact', flagMessage: 'no', direction: 'response', force: true },
      target,
      'scanners',
      loc,
    );
    expect(e).toMatchObject({
      version: 'v_1',
      versionId: V1,
      mode: 'redact',
      flagMessage: 'no',
      direction: 'response',
      force: true,
    });
    expect(buildGuardrailEntry({ id: S, version: 'v_1' }, target, 'scanners', loc).versionId).toBe(V1);
  });

  it('refuses an unpublished or unknown version and the wrong list, at the field', () => {
    expect(codeOf(() => buildGuardrailEntry({ id: S, version: 'v_2' }, target, 'scanners', loc))).toEqual({
      code: ErrorCode.INVALID_ARGUMENT,
      loc: ['body', 'version'],
      message: 'version v_2 of SSN is not published: publish it before pinning it',
    });
    expect(codeOf(() => buildGuardrailEntry({ id: S, version: 'v_9' }, target, 'scanners', loc)).message).toBe(
      'SSN has no version v_9',
    );
    expect(codeOf(() => buildGuardrailEntry({ id: S }, target, 'packages', loc))).toMatchObject({
      loc: ['body', 'id'],
      message: 'SSN is a scanner: attach it under scanners',
    });
  });
});

describe('changing entries', () => {
  const entry = buildGuardrailEntry({ id: S, version: 'v_1' }, target, 'scanners', loc);

  it('changes only what is given; a new pin re-reads the version', () => {
    expect(changeGuardrailEntry(entry, { enabled: false }, target, loc)).toEqual({ ...entry, enabled: false });
    expect(changeGuardrailEntry(entry, { version: 'latest' }, target, loc)).toMatchObject({
      version: 'latest',
      versionId: null,
    });
  });

  it('attaches once, changes and detaches what is attached, 409 and 404 otherwise', () => {
    const one = withEntry(EMPTY_CONFIG, 'scanners', entry);
    expect(one.scanners).toHaveLength(1);
    expect(EMPTY_CONFIG.scanners).toHaveLength(0);
    expect(codeOf(() => withEntry(one, 'scanners', entry)).code).toBe(ErrorCode.ALREADY_EXISTS);
    expect(
      withChangedEntry(one, 'scanners', S.toUpperCase(), (e: typeof entry) => ({ ...e, mode: 'audit' as const }))
        .scanners[0].mode,
    ).toBe('audit');
    expect(codeOf(() => withChangedEntry(EMPTY_CONFIG, 'scanners', S, (e) => e)).code).toBe(ErrorCode.NOT_FOUND);
    expect(withoutEntry(one, 'scanners', S).scanners).toEqual([]);
    expect(codeOf(() => withoutEntry(one, 'packages', S)).code).toBe(ErrorCode.NOT_FOUND);
  });

  it('keeps one default provider: the one just set default wins', () => {
    let c = withEntry(EMPTY_CONFIG, 'providers', buildProviderEntry({ id: P1, default: true, name: 'a' }));
    c = withEntry(c, 'providers', buildProviderEntry({ id: P2, name: 'b' }));
    expect(c.providers.map((p) => p.default)).toEqual([true, false]);
    c = withChangedEntry(c, 'providers', P2, (p: (typeof c.providers)[number]) =>
      changeProviderEntry(p, { default: true }),
    );
    expect(c.providers.map((p) => p.default)).toEqual([false, true]);
    expect(c.providers[1]).toEqual({ id: P2, name: 'b', type: '', capabilities: [], default: true, enabled: true });
  });
});

describe('checkLists', () => {
  it('refuses an id listed twice and two default providers', () => {
    const e = buildGuardrailEntry({ id: S }, target, 'scanners', loc);
    expect(codeOf(() => checkLists({ scanners: [e, e] }, ['body', 'config'])).loc).toEqual([
      'body',
      'config',
      'scanners',
      '1',
      'id',
    ]);
    const p = (id: string) => buildProviderEntry({ id, default: true });
    expect(codeOf(() => checkLists({ providers: [p(P1), p(P2)] }, ['body', 'config'])).loc).toEqual([
      'body',
      'config',
      'providers',
    ]);
    expect(() => checkLists({ providers: [p(P1)] }, [])).not.toThrow();
  });
});

describe('countsOf and publicLists', () => {
  it('count the lists and hide stored version ids', () => {
    const e = buildGuardrailEntry({ id: S, version: 'v_1' }, target, 'scanners', loc);
    const config = {
      packages: [],
      scanners: [e],
      providers: [buildProviderEntry({ id: P1 }), buildProviderEntry({ id: P2 })],
    };
    expect(countsOf(config)).toEqual({ providerCount: 2, scannerCount: 1 });
    expect(publicLists(config).scanners[0]).not.toHaveProperty('versionId');
    expect(publicLists(config).scanners[0].version).toBe('v_1');
  });
});
