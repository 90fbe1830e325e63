import type { Detector } from '../detectors/detector';
import { PII_DETECTORS } from '../detectors/pii/pii-detectors';
import { SECRETS_DETECTORS } from '../detectors/secrets/secrets-detectors';

export type PackageId = 'pii' | 'secrets';

export interface DetectorInfo {
  readonly id: string;
  readonly name: string;
  readonly description: string;
}

/**
 * A scanner package: a built-in scanner a project attaches like any other (`{type: id}` as its
 * config, optionally narrowed with `detectors`), listed so clients can show what it holds.
 */
export interface ScannerPackage {
  readonly id: PackageId;
  readonly name: string;
  readonly description: string;
  readonly detectors: readonly DetectorInfo[];
}

/** The detectors behind each package, in catalog order. */
export const PACKAGE_DETECTORS: Readonly<Record<PackageId, readonly Detector[]>> = {
  pii: PII_DETECTORS,
  secrets: SECRETS_DETECTORS,
};

const info = ({ id, name, description }: Detector): DetectorInfo => ({ id, name, description });

export const BUILT_IN_PACKAGES: readonly ScannerPackage[] = [
  {
    id: 'pii',
    name: 'Personal data',
    description:
      'Personally identifiable information: e-mail addresses, phone numbers, payment cards, IBANs, US SSNs, IP addresses.',
    detectors: PII_DETECTORS.map(info),
  },
  {
    id: 'secrets',
    name: 'Secrets',
    description: 'Credentials: AWS access keys, GitHub tokens, JWTs, private keys and common API keys.',
    detectors: SECRETS_DETECTORS.map(info),
  },
];
