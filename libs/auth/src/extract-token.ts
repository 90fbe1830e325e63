/**
 * Reads the caller's credential (a JWT or an API key) from `Authorization: Bearer <x>`,
 * `Authorization: APIToken <x>` (schemes case-insensitive) or `Authorization: <x>` with no scheme, as
 * some real clients send it. On the routes apps call with an SDK (`/backend/v1`, `/vendor`, `/openai`),
 * `x-api-key: <x>` works too, as the Anthropic SDKs send their key there. Authorization wins when both
 * are sent.
 */
export function extractToken(headers: Record<string, string | string[] | undefined>, url = ''): string | null {
  const value = first(headers.authorization);
  if (value !== undefined && value !== '') {
    const parts = value.trim().split(/\s+/);
    if (parts.length === 1) return /^(Bearer|APIToken|Basic)$/i.test(parts[0]) ? null : parts[0];
    if (parts.length === 2 && /^(Bearer|APIToken)$/i.test(parts[0])) return parts[1];
    return null;
  }
  if (/^\/(backend\/v1|vendor|openai)\//.test(url)) {
    const key = first(headers['x-api-key'])?.trim();
    return key && /^\S+$/.test(key) ? key : null;
  }
  return null;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
