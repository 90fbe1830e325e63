import type { ScanJob, ScannerKey, ScannerRef } from './scan-job';
import { ScannerConfigs } from './scanner-configs';

const ref = (id: string, pattern = id): ScannerRef => ({ id, version: '1', config: { type: 'regex', pattern } });
const job = (...ids: string[]): ScanJob<ScannerKey> => ({
  scanners: ids.map((id) => ({ id, version: '1' })),
  text: '',
  limitMs: 1000,
  spentMs: 0,
});

describe('ScannerConfigs (a scan worker)', () => {
  it('keeps the configs it was sent for later jobs that name their scanners only', () => {
    const configs = new ScannerConfigs();
    const [a, b] = [ref('a'), ref('b')];
    expect(configs.resolve(job('a', 'b'), [a, b])).toEqual([a, b]);
    expect(configs.resolve(job('b', 'a'), [])).toEqual([b, a]);
  });

  it('asks for what it dropped, never guesses, and runs a job sent again with its configs', () => {
    const configs = new ScannerConfigs(2);
    configs.resolve(job('a'), [ref('a')]);
    configs.resolve(job('b'), [ref('b')]);
    configs.resolve(job('a'), []);
    configs.resolve(job('c'), [ref('c')]);
    // 'b' was the least recently used.
    expect(configs.resolve(job('a', 'b', 'c'), [])).toEqual({ missing: ['b\u00001'] });
    // A job's own configs are used even when it names more scanners than are kept.
    const all = [ref('a'), ref('b'), ref('c')];
    expect(configs.resolve(job('a', 'b', 'c'), all)).toEqual(all);
    expect(configs.size).toBe(2);
  });

  it('takes a config sent again under the same ids over the one it kept', () => {
    const configs = new ScannerConfigs();
    configs.resolve(job('a'), [ref('a', 'old')]);
    configs.resolve(job('a'), [ref('a', 'new')]);
    expect(configs.resolve(job('a'), [])).toEqual([ref('a', 'new')]);
  });
});
