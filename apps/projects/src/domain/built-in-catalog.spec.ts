import { validateScannerConfig } from '@bastion/guardrails';
import { builtInCatalog, builtInId, packageDetectors } from './built-in-catalog';

describe('builtInCatalog', () => {
  const catalog = builtInCatalog();

  it('holds the pii and secrets packages, a scanner per detector, and prompt-injection phrases', () => {
    expect(catalog.filter((s) => s.kind === 'package').map((s) => s.config)).toEqual([
      { type: 'pii' },
      { type: 'secrets' },
    ]);
    expect(catalog.find((s) => s.name === 'E-mail address')).toMatchObject({
      kind: 'scanner',
      config: { type: 'pii', detectors: ['email'] },
    });
    expect(catalog.find((s) => s.type === 'keyword')?.direction).toBe('request');
  });

  it('has valid configs, unique names and stable, unique UUIDs', () => {
    for (const s of catalog) expect(validateScannerConfig(s.config)).toEqual([]);
    expect(new Set(catalog.map((s) => s.name)).size).toBe(catalog.length);
    expect(new Set(catalog.flatMap((s) => [s.id, s.versionId])).size).toBe(2 * catalog.length);
    expect(builtInCatalog().map((s) => s.id)).toEqual(catalog.map((s) => s.id));
    expect(builtInId('package:pii')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('lists the detectors of a package', () => {
    expect(packageDetectors('secrets').map((d) => d.id)).toContain('jwt');
    expect(packageDetectors('regex')).toEqual([]);
  });
});
