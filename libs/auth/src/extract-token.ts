/**
 * Reads the JWT from `Authorization: Bearer <jwt>` or `Authorization: APIToken <jwt>` (the scheme
 * real token-API clients send); the scheme is case-insensitive. On the Anthropic-compatible vendor
 * routes, `x-api-key: <jwt>` works too, as the Anthropic SDKs send their key there.
 */
export function extractToken(headers: Record<string, string | string[] | undefined>, url = ''): string | null {
  const raw = headers.authorization;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value) {
    const match = /^(Bearer|APIToken)\s+(\S+)\s*$/i.exec(value);
    return match ? match[2] : null;
  }
  if (url.startsWith('/vendor/')) {
    const key = Array.isArray(headers['x-api-key']) ? headers['x-api-key'][0] : headers['x-api-key'];
    return key && /^\S+$/.test(key) ? key : null;
  }
  return null;
}
