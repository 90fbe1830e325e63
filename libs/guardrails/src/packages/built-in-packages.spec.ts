import { validateScannerConfig } from '../config/validate-scanner-config';
import { compileScanner } from '../scanners/compile-scanner';
import { BUILT_IN_PACKAGES } from './built-in-packages';

describe('BUILT_IN_PACKAGES', () => {
  it('lists the pii and secrets packages and the detectors each holds', () => {
    expect(BUILT_IN_PACKAGES.map((p) => [p.id, p.detectors.map((d) => d.id)])).toEqual([
      ['pii', ['email', 'phone', 'payment-card', 'iban', 'us-ssn', 'ip-address']],
      ['secrets', ['aws-access-key', 'github-token', 'jwt', 'private-key', 'generic-api-key']],
    ]);
    for (const pkg of BUILT_IN_PACKAGES) {
      expect(pkg.name).not.toBe('');
      for (const d of pkg.detectors) expect(d.name && d.description).toBeTruthy();
    }
  });

  it('is a catalog of scanners a project can attach, by package id and detector ids', () => {
    for (const pkg of BUILT_IN_PACKAGES) {
      expect(compileScanner({ type: pkg.id }).scan('nothing sensitive here').outcome).toBe('passed');
      expect(validateScannerConfig({ type: pkg.id, detectors: pkg.detectors.map((d) => d.id) })).toEqual([]);
    }
  });
});
