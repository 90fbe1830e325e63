import { ANY_KIND, type AccessRule, TENANT_KINDS } from '@bastion/auth';

const PUBLIC: AccessRule = { public: true };
const read = (kinds = TENANT_KINDS): AccessRule => ({ role: 'viewer', kinds });
const write = (kinds = TENANT_KINDS): AccessRule => ({ role: 'member', kinds });
const admin = (kinds = TENANT_KINDS): AccessRule => ({ role: 'admin', kinds });
/** Sending text to be scanned or to a model: it spends the tenant's quota, so viewers may not. */
const spend = write(ANY_KIND);

/**
 * THE authorization policy: every gateway route, keyed `METHOD /route/pattern`, with the least role
 * and the principal kinds that may call it. The access guard enforces it on every request, and the
 * gateway refuses to start with a route this table does not name. README.md shows the same table.
 *
 * Project-scoped principals (project JWTs and project keys) reach only what runs through or reads
 * their own project; the services narrow those routes to that project (a project principal's
 * prompts, its project's config).
 */
export const ACCESS_POLICY: Readonly<Record<string, AccessRule>> = {
  // Operations, discovery, and the site's own registration (its admission token is its credential).
  'GET /livez': PUBLIC,
  'GET /readyz': PUBLIC,
  'GET /healthz': PUBLIC,
  'GET /.well-known/jwks.json': PUBLIC,
  'POST /api/register/registerBootstrap': PUBLIC,

  // Site admission (ves.io.schema.token): the tenant's, never a project's.
  'POST /api/register/namespaces/:namespace/tokens': write(),
  'GET /api/register/namespaces/:namespace/tokens': read(),
  'GET /api/register/namespaces/:namespace/tokens/:name': read(),
  'PUT /api/register/namespaces/:namespace/tokens/:name': write(),
  'DELETE /api/register/namespaces/:namespace/tokens/:name': admin(),
  'POST /api/register/namespaces/:namespace/tokens/:name/state': admin(),
  'GET /api/register/namespaces/:namespace/registrations': read(),
  'DELETE /api/register/namespaces/:namespace/registrations/:name': admin(),
  'POST /api/register/namespaces/system/get-registrations-by-token': read(),
  'GET /api/register/namespaces/system/get-cloud-init-config': write(),

  // Who am I, and the API keys apps use.
  'GET /backend/v1/users/me': read(ANY_KIND),
  'POST /backend/v1/tokens': admin(),
  'GET /backend/v1/tokens': read(),
  'GET /backend/v1/tokens/:id': read(),
  'DELETE /backend/v1/tokens/:id': admin(),

  // Through a project's guardrails: project principals use their own project.
  'POST /backend/v1/scans': spend,
  'POST /backend/v1/prompts': spend,
  'POST /vendor/:provider/v1/messages': spend,
  'GET /backend/v1/prompts': read(ANY_KIND),
  'GET /backend/v1/prompts/:id': read(ANY_KIND),
  'POST /backend/v1/prompts/templates': write(ANY_KIND),
  'GET /backend/v1/prompts/templates/:id': read(ANY_KIND),

  // Providers (secret-bearing configuration).
  'GET /backend/v1/providers/system': read(),
  'GET /backend/v1/providers/system/:ref': read(),
  'POST /backend/v1/providers/test': write(),
  'POST /backend/v1/providers': write(),
  'GET /backend/v1/providers': read(),
  'GET /backend/v1/providers/:ref': read(),
  'PATCH /backend/v1/providers/:ref': write(),
  'DELETE /backend/v1/providers/:ref': admin(),

  // Projects: a project principal may read its own project, nothing else.
  'POST /backend/v1/projects': write(),
  'GET /backend/v1/projects': read(),
  'GET /backend/v1/projects/:project': read(ANY_KIND),
  'PATCH /backend/v1/projects/:id': write(),
  'DELETE /backend/v1/projects/:id': admin(),
  'POST /backend/v1/projects/:id/scanners': write(),
  'PATCH /backend/v1/projects/:id/scanners/:entryId': write(),
  'DELETE /backend/v1/projects/:id/scanners/:entryId': write(),
  'POST /backend/v1/projects/:id/packages': write(),
  'PATCH /backend/v1/projects/:id/packages/:entryId': write(),
  'DELETE /backend/v1/projects/:id/packages/:entryId': write(),
  'POST /backend/v1/projects/:id/providers': write(),
  'PATCH /backend/v1/projects/:id/providers/:entryId': write(),
  'DELETE /backend/v1/projects/:id/providers/:entryId': write(),

  // Scanners (guardrails), their versions and dataset evaluations.
  'POST /backend/v1/scanners': write(),
  'GET /backend/v1/scanners': read(),
  'GET /backend/v1/scanners/:scannerId': read(),
  'PATCH /backend/v1/scanners/:scannerId': write(),
  'DELETE /backend/v1/scanners/:scannerId': admin(),
  'GET /backend/v1/scanners/:scannerId/versions': read(),
  'GET /backend/v1/scanners/:scannerId/versions/:versionId': read(),
  'PATCH /backend/v1/scanners/:scannerId/versions/:versionId': write(),
  'POST /backend/v1/scanners/:scannerId/versions/:versionId/evaluate': write(),
  'GET /backend/v1/scanners/:scannerId/versions/:versionId/evaluations': read(),
  'GET /backend/v1/packages': read(),
};

/** Routes served outside Nest (the OpenAPI document and its UI): no data, no credential. */
export function isDocsRoute(url: string): boolean {
  return url === '/openapi.json' || url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs-');
}

export function ruleKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}
