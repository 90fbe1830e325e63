import {
  ANY_KIND,
  type AccessRule,
  ApiKeySubjects,
  ProjectSubjects,
  PromptSubjects,
  ProviderSubjects,
  ProxySubjects,
  rpcRule,
  ScannerSubjects,
  TokenSubjects,
} from '@bastion/contracts';

const PUBLIC: AccessRule = { public: true };

/** A route that is one NATS request has that request's rule (RPC_POLICY in libs/contracts). */
function rpc(subject: string): AccessRule {
  const rule = rpcRule(subject);
  if ('internal' in rule) throw new Error(`${subject} is internal: no route may expose it`);
  return rule;
}

/**
 * The authorization policy at the HTTP edge: every gateway route, keyed `METHOD /route/pattern`, with
 * the least role and the principal kinds that may call it, taken from the rule of the NATS request
 * the route makes. The access guard enforces it on every request (so a refused caller costs no
 * NATS round trip), and the gateway refuses to start with a route this table does not name.
 * README.md shows the same table.
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
  'POST /api/register/namespaces/:namespace/tokens': rpc(TokenSubjects.create),
  'GET /api/register/namespaces/:namespace/tokens': rpc(TokenSubjects.list),
  'GET /api/register/namespaces/:namespace/tokens/:name': rpc(TokenSubjects.get),
  'PUT /api/register/namespaces/:namespace/tokens/:name': rpc(TokenSubjects.replace),
  'DELETE /api/register/namespaces/:namespace/tokens/:name': rpc(TokenSubjects.delete),
  'POST /api/register/namespaces/:namespace/tokens/:name/state': rpc(TokenSubjects.setState),
  'GET /api/register/namespaces/:namespace/registrations': rpc(TokenSubjects.listRegistrations),
  'DELETE /api/register/namespaces/:namespace/registrations/:name': rpc(TokenSubjects.deleteRegistration),
  'POST /api/register/namespaces/system/get-registrations-by-token': rpc(TokenSubjects.registrationsByToken),
  'GET /api/register/namespaces/system/get-cloud-init-config': rpc(TokenSubjects.cloudInit),

  // Who am I, and the API keys apps use.
  'GET /backend/v1/users/me': { role: 'viewer', kinds: ANY_KIND },
  'POST /backend/v1/tokens': rpc(ApiKeySubjects.create),
  'GET /backend/v1/tokens': rpc(ApiKeySubjects.list),
  'GET /backend/v1/tokens/:id': rpc(ApiKeySubjects.get),
  'DELETE /backend/v1/tokens/:id': rpc(ApiKeySubjects.delete),

  // Through a project's guardrails: project principals use their own project.
  'POST /backend/v1/scans': rpc(ProxySubjects.scan),
  'GET /backend/v1/scans/:id': rpc(PromptSubjects.getScan),
  'POST /backend/v1/prompts': rpc(ProxySubjects.sendPrompt),
  'POST /vendor/:provider/v1/messages': rpc(ProxySubjects.messages),
  'POST /openai/:provider/chat/completions': rpc(ProxySubjects.chat),
  'GET /backend/v1/prompts': rpc(PromptSubjects.list),
  'GET /backend/v1/prompts/:id': rpc(PromptSubjects.get),
  'POST /backend/v1/prompts/templates': rpc(PromptSubjects.createTemplate),
  'GET /backend/v1/prompts/templates/:id': rpc(PromptSubjects.getTemplate),

  // Providers (secret-bearing configuration).
  'GET /backend/v1/providers/system': rpc(ProviderSubjects.listSystem),
  'GET /backend/v1/providers/system/:ref': rpc(ProviderSubjects.getSystem),
  'POST /backend/v1/providers/test': rpc(ProviderSubjects.test),
  'POST /backend/v1/providers': rpc(ProviderSubjects.create),
  'GET /backend/v1/providers': rpc(ProviderSubjects.list),
  'GET /backend/v1/providers/:ref': rpc(ProviderSubjects.get),
  'PATCH /backend/v1/providers/:ref': rpc(ProviderSubjects.update),
  'DELETE /backend/v1/providers/:ref': rpc(ProviderSubjects.delete),

  // Projects: a project principal may read its own project, nothing else.
  'POST /backend/v1/projects': rpc(ProjectSubjects.create),
  'GET /backend/v1/projects': rpc(ProjectSubjects.list),
  'GET /backend/v1/projects/:project': rpc(ProjectSubjects.get),
  'GET /backend/v1/project': rpc(ProjectSubjects.global),
  'PATCH /backend/v1/projects/:id': rpc(ProjectSubjects.update),
  'DELETE /backend/v1/projects/:id': rpc(ProjectSubjects.delete),
  'POST /backend/v1/projects/:id/scanners': rpc(ProjectSubjects.attachGuardrail),
  'PATCH /backend/v1/projects/:id/scanners/:entryId': rpc(ProjectSubjects.updateGuardrail),
  'DELETE /backend/v1/projects/:id/scanners/:entryId': rpc(ProjectSubjects.detach),
  'POST /backend/v1/projects/:id/scanners/:entryId': rpc(ProjectSubjects.attachById),
  'POST /backend/v1/projects/:id/packages': rpc(ProjectSubjects.attachGuardrail),
  'PATCH /backend/v1/projects/:id/packages/:entryId': rpc(ProjectSubjects.updateGuardrail),
  'DELETE /backend/v1/projects/:id/packages/:entryId': rpc(ProjectSubjects.detach),
  'POST /backend/v1/projects/:id/packages/:entryId': rpc(ProjectSubjects.attachById),
  'POST /backend/v1/projects/:id/scanner-packages/:entryId': rpc(ProjectSubjects.attachById),
  'PATCH /backend/v1/projects/:id/scanner-packages/:entryId': rpc(ProjectSubjects.updateGuardrail),
  'DELETE /backend/v1/projects/:id/scanner-packages/:entryId': rpc(ProjectSubjects.detach),
  'POST /backend/v1/projects/:id/providers': rpc(ProjectSubjects.attachProvider),
  'PATCH /backend/v1/projects/:id/providers/:entryId': rpc(ProjectSubjects.updateProvider),
  'DELETE /backend/v1/projects/:id/providers/:entryId': rpc(ProjectSubjects.detach),
  'POST /backend/v1/projects/:id/providers/:entryId': rpc(ProjectSubjects.attachById),

  // Scanners (guardrails), their versions and dataset evaluations.
  'POST /backend/v1/scanners': rpc(ScannerSubjects.create),
  'GET /backend/v1/scanners': rpc(ScannerSubjects.list),
  'GET /backend/v1/scanners/:scannerId': rpc(ScannerSubjects.get),
  'PATCH /backend/v1/scanners/:scannerId': rpc(ScannerSubjects.update),
  'DELETE /backend/v1/scanners/:scannerId': rpc(ScannerSubjects.delete),
  'GET /backend/v1/scanners/:scannerId/versions': rpc(ScannerSubjects.listVersions),
  'GET /backend/v1/scanners/:scannerId/versions/:versionId': rpc(ScannerSubjects.getVersion),
  'PATCH /backend/v1/scanners/:scannerId/versions/:versionId': rpc(ScannerSubjects.updateVersion),
  'POST /backend/v1/scanners/:scannerId/versions/:versionId/evaluate': rpc(ScannerSubjects.evaluate),
  'GET /backend/v1/scanners/:scannerId/versions/:versionId/evaluations': rpc(ScannerSubjects.listEvaluations),
  'GET /backend/v1/packages': rpc(ScannerSubjects.listPackages),
  'GET /backend/v1/scanner-packages': rpc(ScannerSubjects.listPackages),
};

/** Routes served outside Nest (the OpenAPI document and its UI): no data, no credential. */
export function isDocsRoute(url: string): boolean {
  return url === '/openapi.json' || url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs-');
}

export function ruleKey(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}
