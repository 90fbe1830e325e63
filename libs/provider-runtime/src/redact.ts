const REDACTED = '[redacted]';

/** Secrets shorter than this are not searched for: they would blank out ordinary text. */
export const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every occurrence of each secret value in `text`, longest first (so a secret containing
 * another is blanked whole). Used on everything the tester shows and every log line of a request.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const values = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
  let out = text;
  for (const v of values) out = out.split(v).join(REDACTED);
  return out;
}

export function redactRecord(record: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, redactSecrets(v, secrets)]));
}

/**
 * The spellings of secret values worth blanking in a message: each as stored, and lower-cased, as a
 * URL's host shows one put there.
 */
export function secretSpellings(secrets: Readonly<Record<string, string>>): string[] {
  return Object.values(secrets).flatMap((v) => [v, v.toLowerCase()]);
}
