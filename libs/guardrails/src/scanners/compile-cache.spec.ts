import { CompiledScannerCache } from './compile-cache';

describe('CompiledScannerCache keys', () => {
  it('compiles a different config under the same ids anew, not the stale one', () => {
    const cache = new CompiledScannerCache();
    const a = cache.get({ id: 's', version: '1', config: { type: 'regex', pattern: 'alpha' } });
    const b = cache.get({ id: 's', version: '1', config: { type: 'regex', pattern: 'beta' } });
    expect(cache.compileCount).toBe(2);
    if (a instanceof Error || b instanceof Error) throw new Error('expected both to compile');
    expect(b.scan('beta').outcome).toBe('failed');
    expect(b.scan('alpha').outcome).toBe('passed');
    // The same config as another object (a reloaded project) is a hit.
    expect(cache.get({ id: 's', version: '1', config: { type: 'regex', pattern: 'beta' } })).toBe(b);
    expect(cache.compileCount).toBe(2);
  });

  it('does not serialise the config again on a hit', () => {
    const cache = new CompiledScannerCache();
    const ref = { id: 's', version: '1', config: { type: 'regex', patterns: ['a\\d+', 'b\\d+'] } };
    const first = cache.get(ref);
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      for (let i = 0; i < 10; i++) expect(cache.get(ref)).toBe(first);
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
    expect(cache.compileCount).toBe(1);
  });
});
