import { DomainError } from '@bastion/contracts';
import { matchesVersionRef, resolveRuntimeVersion, versionName } from './versions';

const loc = ['body', 'version', 'name'];

describe('versionName', () => {
  it('numbers versions v_1, v_2, ... unless named', () => {
    expect(versionName(1, undefined, loc)).toBe('v_1');
    expect(versionName(7, undefined, loc)).toBe('v_7');
    expect(versionName(2, 'v_2', loc)).toBe('v_2');
    expect(versionName(2, 'stricter-ssn', loc)).toBe('stricter-ssn');
  });

  it("refuses another number's automatic name and UUIDs, at the field", () => {
    const attempt = () => versionName(2, 'v_5', loc);
    expect(attempt).toThrow(DomainError);
    expect(attempt).toThrow(/reserved: this version is v_2/);
    try {
      versionName(2, '0b7e7f5e-1111-4c4c-8d8d-000000000000', loc);
    } catch (e) {
      expect((e as DomainError).details[0].loc).toEqual(loc);
    }
  });
});

describe('matchesVersionRef', () => {
  const v = { id: '0b7e7f5e-1111-4c4c-8d8d-00000000000a', name: 'v_3' };
  it('matches by id (any case) or by name', () => {
    expect(matchesVersionRef(v, 'v_3')).toBe(true);
    expect(matchesVersionRef(v, v.id.toUpperCase())).toBe(true);
    expect(matchesVersionRef(v, 'v_4')).toBe(false);
    expect(matchesVersionRef(v, '0b7e7f5e-1111-4c4c-8d8d-00000000000b')).toBe(false);
  });
});

describe('resolveRuntimeVersion', () => {
  const v = (n: number, published: boolean) => ({ id: `id-${n}`, number: n, published });

  it('runs a pinned version, published or not', () => {
    expect(resolveRuntimeVersion([v(1, true), v(2, false)], 'id-1', 'id-2').id).toBe('id-2');
  });

  it('follows the newest published version up to the latest', () => {
    expect(resolveRuntimeVersion([v(1, true), v(2, true), v(3, false)], 'id-3', null).id).toBe('id-2');
    expect(resolveRuntimeVersion([v(1, true), v(2, true)], 'id-2', null).id).toBe('id-2');
  });

  it('leaves out a published version that was not pushed (newer than the latest)', () => {
    expect(resolveRuntimeVersion([v(1, true), v(2, true)], 'id-1', null).id).toBe('id-1');
    expect(resolveRuntimeVersion([v(1, false), v(2, true)], 'id-1', null).id).toBe('id-1');
  });

  it('runs the latest when nothing up to it is published', () => {
    expect(resolveRuntimeVersion([v(1, false), v(2, false)], 'id-2', null).id).toBe('id-2');
  });

  it('follows the scanner when a pinned version is gone', () => {
    expect(resolveRuntimeVersion([v(1, true)], 'id-1', 'id-9').id).toBe('id-1');
  });
});
