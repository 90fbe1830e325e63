/**
 * How a secret is shown: never in full. Admins see the last four characters of a long secret, to
 * tell keys apart; everyone else sees only that there is one.
 */
export function maskSecret(value: string, revealTail: boolean): string {
  if (revealTail && value.length >= 16) return `****${value.slice(-4)}`;
  return '********';
}

export function maskSecrets(secrets: Record<string, string>, revealTail: boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, maskSecret(v, revealTail)]));
}

/**
 * Applies a PATCH of secrets: a value equal to what a client was shown (its mask) keeps the stored
 * secret, so a read-modify-write round trip does not overwrite it; "" removes one.
 */
export function mergeSecrets(current: Record<string, string>, patch: Record<string, string>): Record<string, string> {
  const next = { ...current };
  for (const [name, value] of Object.entries(patch)) {
    if (value === '') delete next[name];
    else if (
      name in current &&
      (value === maskSecret(current[name], true) || value === maskSecret(current[name], false))
    )
      continue;
    else next[name] = value;
  }
  return next;
}
