/**
 * Reads the JWT from `Authorization: Bearer <jwt>` or `Authorization: APIToken <jwt>` (the scheme
 * real token-API clients send); the scheme is case-insensitive.
 */
export function extractToken(headers: Record<string, string | string[] | undefined>): string | null {
  const raw = headers.authorization;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!value) return null;
  const match = /^(Bearer|APIToken)\s+(\S+)\s*$/i.exec(value);
  return match ? match[2] : null;
}
