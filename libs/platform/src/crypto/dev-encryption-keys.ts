/**
 * The development key that seals secrets at rest when a service's `*_ENCRYPTION_KEYS` is unset.
 * It is public, so a production process refuses to start with it.
 */
export const DEV_ENCRYPTION_KEYS = 'dev:ZGV2ZWxvcG1lbnQtb25seS1rZXktMzItYnl0ZXMhISE=';

export function refuseDevEncryptionKeysInProduction(nodeEnv: string, variable: string, value: string): void {
  if (nodeEnv === 'production' && value === DEV_ENCRYPTION_KEYS) {
    throw new Error(`${variable} must be set in production; the development key is public`);
  }
}
