import { randomUUID } from 'node:crypto';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { DEV_ALGORITHM, devPrivateKey } from '@bastion/auth';
import jwt from 'jsonwebtoken';
import {
  type AccessRule,
  DomainError,
  ErrorCode,
  hasRole,
  type Principal,
  PRINCIPAL_KINDS,
  ProjectSubjects,
  RPC_POLICY,
  type PrincipalKind,
  ROLES,
  type Role,
} from '@bastion/contracts';
import { bearer, uniqueTenant, untypedRpc, testNatsLogin } from '@bastion/testing';
import { ACCESS_POLICY } from '../../apps/gateway/src/access/access-policy.table';
import { startProjectsService } from '../support/projects';
import { connectNats, NatsRpcClient } from '@bastion/messaging';
import { startAllServices } from '../support/services';
import { http, startGateway } from '../support/stack';

jest.setTimeout(120_000);

/** A concrete path for a route pattern: every parameter gets a value of the shape its route takes. */
function pathOf(pattern: string, project: string): string {
  return pattern.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    if (name === 'project') return project;
    if (name === 'namespace') return 'system';
    if (name === 'versionId') return 'v_1';
    if (name === 'name' || name === 'provider' || name === 'ref') return 'some-name';
    return randomUUID();
  });
}

/**
 * Walks the whole access policy: every route, with each kind of principal in each role. Only the
 * projects service runs (it resolves API keys), so a request the policy lets through reaches a
 * service or finds none (503); one it refuses is a 403 before any service is asked.
 */
describe('the access policy, route by route', () => {
  let projects: INestMicroservice;
  let gateway: INestApplication;
  let base: string;

  beforeAll(async () => {
    projects = await startProjectsService();
    ({ app: gateway, url: base } = await startGateway());
  });
  afterAll(async () => {
    await gateway?.close();
    await projects?.close();
  });

  it('lets through exactly the principals each route names, and refuses the others with 403', async () => {
    const tenant = uniqueTenant();
    const admin = bearer(tenant, 'admin');
    const project = await http(base, 'POST', '/backend/v1/projects', { auth: admin, body: { name: 'walk' } });
    expect(project.status).toBe(200);
    const projectId: string = project.body.project.id;
    const credential = async (kind: PrincipalKind, role: Role): Promise<string> => {
      if (kind === 'user-jwt') return bearer(tenant, role);
      if (kind === 'project-jwt') return bearer(tenant, role, { project: projectId });
      const made = await http(base, 'POST', '/backend/v1/tokens', {
        auth: admin,
        body: { name: `${kind}-${role}`, role, ...(kind === 'project-key' ? { projectId } : {}) },
      });
      expect(made.status).toBe(200);
      return made.body.token.value;
    };
    const principals: { kind: PrincipalKind; role: Role; auth: string }[] = [];
    for (const kind of PRINCIPAL_KINDS)
      for (const role of ROLES) principals.push({ kind, role, auth: await credential(kind, role) });

    const wrong: string[] = [];
    let walked = 0;
    for (const [key, rule] of Object.entries(ACCESS_POLICY) as [string, AccessRule][]) {
      const [method, pattern] = key.split(' ');
      const path = pathOf(pattern, projectId);
      const body = method === 'GET' || method === 'DELETE' ? undefined : {};
      if ('public' in rule) {
        const res = await http(base, method, path, { body });
        if (res.status === 401 || res.status === 403 || res.status === 404)
          wrong.push(`${key} (public) answered ${res.status} without a credential`);
        continue;
      }
      const anonymous = await http(base, method, path, { body });
      if (anonymous.status !== 401) wrong.push(`${key} answered ${anonymous.status} without a credential`);
      for (const p of principals) {
        const allowed = rule.kinds.includes(p.kind) && hasRole({ roles: [p.role] }, rule.role);
        const res = await http(base, method, path, {
          body,
          headers: { authorization: p.auth.startsWith('Bearer ') ? p.auth : `Bearer ${p.auth}` },
        });
        walked++;
        if (
          allowed &&
          (res.status === 401 ||
            res.status === 403 ||
            (res.status === 404 && res.body?.detail === undefined && res.body?.message === undefined))
        ) {
          wrong.push(`${key} refused ${p.kind}/${p.role} (${res.status} ${JSON.stringify(res.body)})`);
        }
        if (!allowed && res.status !== 403) wrong.push(`${key} let ${p.kind}/${p.role} through (${res.status})`);
      }
    }
    expect(wrong).toEqual([]);
    expect(walked).toBe(Object.values(ACCESS_POLICY).filter((r) => !('public' in r)).length * principals.length);
  });

  describe('bearer JWTs', () => {
    const me = (authorization: string) => http(base, 'GET', '/backend/v1/users/me', { headers: { authorization } });
    const sign = (claims: object, options: jwt.SignOptions) =>
      jwt.sign(claims, devPrivateKey(), {
        algorithm: DEV_ALGORITHM,
        issuer: 'bastion-dev',
        audience: 'bastion',
        subject: 'u@t',
        ...options,
      });
    const tenant = uniqueTenant();

    it('takes a valid JWT as Bearer and with no scheme', async () => {
      const token = sign({ tenant, roles: ['viewer'] }, { expiresIn: 600 });
      expect((await me(`Bearer ${token}`)).body.user).toMatchObject({
        id: 'u@t',
        email: 'u@t',
        tenant,
        kind: 'user-jwt',
      });
      expect((await me(token)).status).toBe(200);
    });

    it('refuses a JWT without exp', async () => {
      expect((await me(`Bearer ${sign({ tenant, roles: ['admin'] }, {})}`)).status).toBe(401);
    });

    it('refuses a JWT that lives longer than AUTH_MAX_TOKEN_LIFETIME_SECONDS (a day by default)', async () => {
      expect((await me(`Bearer ${sign({ tenant, roles: ['admin'] }, { expiresIn: 86_400 + 60 })}`)).status).toBe(401);
      expect((await me(`Bearer ${sign({ tenant, roles: ['admin'] }, { expiresIn: 86_400 })}`)).status).toBe(200);
    });

    it('refuses an empty project claim instead of reading it as tenant-wide', async () => {
      const res = await me(`Bearer ${sign({ tenant, roles: ['admin'], project: '' }, { expiresIn: 600 })}`);
      expect(res.status).toBe(401);
      const list = await http(base, 'GET', '/backend/v1/projects', {
        auth: `Bearer ${sign({ tenant, roles: ['admin'], project: '' }, { expiresIn: 600 })}`,
      });
      expect(list.status).toBe(401);
    });
  });

  it('every service applies the same policy to NATS requests sent past the gateway', async () => {
    // The projects service already runs (beforeAll); the others join for this test.
    const others = await startAllServices({ exclude: ['projects'] });
    const nc = await connectNats(testNatsLogin(), { name: 'e2e-rpc-policy' });
    const rpc = new NatsRpcClient(nc, 5000);
    const tenant = uniqueTenant();
    const projectId = randomUUID();
    const wrong: string[] = [];
    try {
      for (const [subject, rule] of Object.entries(RPC_POLICY)) {
        if ('internal' in rule) continue;
        for (const kind of PRINCIPAL_KINDS) {
          for (const role of ROLES) {
            const principal: Principal = {
              sub: 'walker',
              tenant,
              roles: [role],
              ...(kind.startsWith('project') ? { project: projectId } : {}),
              ...(kind.endsWith('key') ? { credential: 'key' as const } : {}),
            };
            const allowed = rule.kinds.includes(kind) && hasRole(principal, rule.role);
            // Only the principal: an allowed request then fails validation (or reads), and changes nothing.
            const code = await rpc.call(untypedRpc(subject), { principal }, 'walk').then(
              () => 'OK',
              (err: unknown) => (err instanceof DomainError ? err.code : String(err)),
            );
            const refused = code === ErrorCode.PERMISSION_DENIED || code === ErrorCode.UNAUTHENTICATED;
            if (allowed === refused) wrong.push(`${subject} ${kind}/${role}: ${code}`);
          }
        }
      }
      const anonymous = await rpc
        .call(untypedRpc(ProjectSubjects.list), { limit: 1 }, 'walk')
        .catch((err: DomainError) => err.code);
      expect(anonymous).toBe(ErrorCode.UNAUTHENTICATED);
    } finally {
      await nc.close();
      for (const s of others) await s.close();
    }
    expect(wrong).toEqual([]);
  });
});
