import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { bearer, uniqueTenant } from '@bastion/testing';
import Ajv from 'ajv';
import ts from 'typescript';
import { startAllServices } from '../support/services';
import { http, startGateway } from '../support/stack';

const ROOT = path.join(__dirname, '..', '..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type Operation = { responses: Record<string, { content?: Record<string, { schema?: object }> }> };

/** Compiles `files` (name -> source) with the repository's strictness; returns the diagnostics. */
function typeErrors(dir: string, files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const base = ts.readConfigFile(path.join(ROOT, 'tsconfig.base.json'), ts.sys.readFile).config;
  const { options } = ts.parseJsonConfigFileContent(
    { ...base, compilerOptions: { ...base.compilerOptions, types: [], noEmit: true } },
    ts.sys,
    ROOT,
  );
  const program = ts.createProgram(
    Object.keys(files).map((f) => path.join(dir, f)),
    options,
  );
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('the OpenAPI document, as a client generated from it sees it', () => {
  let services: INestMicroservice[];
  let gateway: INestApplication;
  let base: string;
  let doc: {
    paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
    components: { schemas: Record<string, object> };
  };
  let dir: string;

  beforeAll(async () => {
    services = await startAllServices({ exclude: ['message-proxy', 'prompts'] });
    ({ app: gateway, url: base } = await startGateway());
    doc = (await http(base, 'GET', '/openapi.json')).body;
    dir = mkdtempSync(path.join(tmpdir(), 'bastion-openapi-'));
  }, 30_000);

  afterAll(async () => {
    await gateway?.close();
    await Promise.all((services ?? []).map((s) => s.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('documents a 200 body and the error bodies of every route', () => {
    const undocumented: string[] = [];
    for (const [route, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op) continue;
        const ok = op.responses['200']?.content;
        if (!ok || !Object.values(ok).every((c) => c.schema))
          undocumented.push(`${method.toUpperCase()} ${route}: 200`);
        for (const status of ['400', '401', '403', '404', '500', '503', '504']) {
          if (!op.responses[status]?.content?.['application/json']?.schema)
            undocumented.push(`${method.toUpperCase()} ${route}: ${status}`);
        }
      }
    }
    expect(undocumented).toEqual([]);
    expect(
      doc.paths['/backend/v1/projects/{project}'].get!.responses['422'].content!['application/json'].schema,
    ).toEqual({ $ref: '#/components/schemas/BackendApiError' });
    expect(
      doc.paths['/api/register/namespaces/{namespace}/tokens'].post!.responses['409'].content!['application/json']
        .schema,
    ).toEqual({ $ref: '#/components/schemas/TokenApiError' });
  });

  it('generates a client whose types match what real calls answer', async () => {
    const tenant = uniqueTenant();
    const admin = bearer(tenant, 'admin');
    const T = '/api/register/namespaces/system/tokens';
    const created = await http(base, 'POST', T, {
      auth: admin,
      body: { metadata: { name: 'openapi-edge' }, spec: {} },
    });
    expect(created.status).toBe(200);
    const got = await http(base, 'GET', `${T}/openapi-edge`, { auth: admin });
    expect(got.status).toBe(200);
    const providers = await http(base, 'GET', '/backend/v1/providers', { auth: admin });
    expect(providers.status).toBe(200);
    const project = await http(base, 'GET', '/backend/v1/projects/default', { auth: admin });
    expect(project.status).toBe(200);
    const missing = await http(base, 'GET', `${T}/nope`, { auth: admin });
    expect(missing.status).toBe(404);

    // Each body is valid against the schema the document gives its route and status.
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema({ ...doc, $id: 'openapi.json' } as object);
    const check = (route: string, method: string, status: string, body: unknown) => {
      const pointer = `openapi.json#/paths/${route.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${status}/content/application~1json/schema`;
      const validate = ajv.getSchema(pointer)!;
      return validate(body)
        ? []
        : (validate.errors ?? []).map((e) => `${method} ${route} ${status}: ${e.instancePath} ${e.message}`);
    };
    expect([
      ...check('/api/register/namespaces/{namespace}/tokens', 'post', '200', created.body),
      ...check('/api/register/namespaces/{namespace}/tokens/{name}', 'get', '200', got.body),
      ...check('/backend/v1/providers', 'get', '200', providers.body),
      ...check('/backend/v1/projects/{project}', 'get', '200', project.body),
      ...check('/api/register/namespaces/{namespace}/tokens/{name}', 'get', '404', missing.body),
    ]).toEqual([]);

    // The client's types, generated from the served document, type-check against the real calls.
    writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(doc));
    execFileSync(
      path.join(ROOT, 'node_modules', '.bin', 'openapi-typescript'),
      [path.join(dir, 'openapi.json'), '-o', path.join(dir, 'api.ts')],
      { stdio: 'pipe' },
    );
    const contracts = path.join(ROOT, 'libs', 'contracts', 'src', 'openapi', 'http-replies.ts').replace(/\\/g, '/');
    const client = `
import type { paths, components } from './api.js';
import type { HttpBodies } from '${contracts.replace(/\.ts$/, '.js')}';
type TokenCreateResponse = HttpBodies['TokenCreateResponse'];
type TokenGetResponse = HttpBodies['TokenGetResponse'];
type ProviderPage = HttpBodies['ProviderPage'];
type ProjectReply = HttpBodies['ProjectReply'];
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends 'get' | 'post'> = paths[P][M] extends { responses: { 200: infer R } } ? Json<R> : never;
type Created = Ok<'/api/register/namespaces/{namespace}/tokens', 'post'>;
type Got = Ok<'/api/register/namespaces/{namespace}/tokens/{name}', 'get'>;
type Providers = Ok<'/backend/v1/providers', 'get'>;
type Project = Ok<'/backend/v1/projects/{project}', 'get'>;
type CreateBody = paths['/api/register/namespaces/{namespace}/tokens']['post'] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

// The bodies real calls answered, typed as the generated client types them.
export const created: Created = ${JSON.stringify(created.body)};
export const got: Got = ${JSON.stringify(got.body)};
export const providers: Providers = ${JSON.stringify(providers.body)};
export const project: Project = ${JSON.stringify(project.body)};
export const notFound: components['schemas']['TokenApiError'] = ${JSON.stringify(missing.body)};
export const sent: CreateBody = { metadata: { name: 'openapi-edge' }, spec: {} };

// The generated types and the platform's own are the same shapes, both ways.
export const a: TokenCreateResponse = created;
export const b: Created = null! as TokenCreateResponse;
export const c: TokenGetResponse = got;
export const d: Got = null! as TokenGetResponse;
export const e: ProviderPage = providers;
export const f: Providers = null! as ProviderPage;
export const g: ProjectReply = project;
export const h: Project = null! as ProjectReply;
`;
    expect(typeErrors(dir, { 'client.ts': client })).toEqual([]);
    // ...and a body the document does not allow is refused (the check can fail).
    const wrong = `import type { paths } from './api.js';
export const x: paths['/backend/v1/projects/{project}']['get']['responses'][200]['content']['application/json'] = { project: { id: 1 } };\n`;
    expect(typeErrors(dir, { 'wrong.ts': wrong }).length).toBeGreaterThan(0);
  }, 60_000);
});
