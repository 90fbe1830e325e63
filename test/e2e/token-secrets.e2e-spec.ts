import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { bearer, uniqueTenant } from '@bastion/testing';
import { parse } from 'yaml';
import { startProjectsService } from '../support/projects';
import { http, startGateway, startTokensService } from '../support/stack';

const API = '/api/register';
const TOKENS = `${API}/namespaces/system/tokens`;

jest.setTimeout(30_000);

/** Every string anywhere in a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(strings);
}

/**
 * Site admission secrets (a NORMAL token's uid, a JWT token's JWT) are readable by those who may
 * create tokens (members and admins), not by viewers: a viewer who could read one could admit a
 * rogue site with it.
 */
describe('token reads and admission secrets', () => {
  let services: INestMicroservice[];
  let gateway: INestApplication;
  let base: string;

  beforeAll(async () => {
    services = [await startTokensService(), await startProjectsService()];
    ({ app: gateway, url: base } = await startGateway(undefined, { GATEWAY_TRUST_PROXY: 'true' }));
  });

  afterAll(async () => {
    await gateway?.close();
    for (const s of services ?? []) await s.close();
  });

  let node = 0;
  /** Each attempt from its own address, so the refusals of one do not rate-limit the next. */
  const register = (token: string) => {
    node += 1;
    return http(base, 'POST', `${API}/registerBootstrap`, {
      body: {
        metadata: { name: `node-${node}` },
        spec: { token, passport: { cluster_name: 'site-a', cluster_size: 1, latitude: 48.85, longitude: 2.35 } },
      },
      headers: { 'x-forwarded-for': `10.${(node >> 16) & 255}.${(node >> 8) & 255}.${node & 255}` },
    });
  };

  /** What a caller reads of the tenant's tokens and registrations, with every field reported. */
  async function readAll(auth: string, names: string[]) {
    const list = await http(base, 'GET', `${TOKENS}?report_fields&report_status_fields`, { auth });
    expect(list.status).toBe(200);
    const gets = [];
    for (const name of names) {
      for (const format of ['GET_RSP_FORMAT_DEFAULT', 'GET_RSP_FORMAT_STATUS']) {
        const res = await http(base, 'GET', `${TOKENS}/${name}?response_format=${format}`, { auth });
        expect(res.status).toBe(200);
        gets.push(res.body);
      }
    }
    const registrations = await http(base, 'GET', `${API}/namespaces/system/registrations?report_fields`, { auth });
    expect(registrations.status).toBe(200);
    return { list: list.body, bodies: [list.body, ...gets, registrations.body] };
  }

  it("gives a viewer (JWT or API key) no value registerBootstrap accepts, and a member the token's working uid", async () => {
    const tenant = uniqueTenant();
    const member = bearer(tenant, 'member');
    const created = await http(base, 'POST', TOKENS, { auth: member, body: { metadata: { name: 'fleet' }, spec: {} } });
    expect(created.status).toBe(200);
    const uid: string = created.body.system_metadata.uid;
    const cloudInit = await http(base, 'GET', `${API}/namespaces/system/get-cloud-init-config?provider=kvm`, {
      auth: member,
    });
    expect(cloudInit.status).toBe(200);
    const files = parse(cloudInit.body.cloud_init_config).write_files as { path: string; content: string }[];
    const jwt = parse(files.find((f) => f.path === '/etc/vpm/user_data')!.content).token as string;
    // A registration, so the registration list has a token_uid to show or hide.
    expect((await register(uid)).status).toBe(200);

    const names: string[] = (await http(base, 'GET', TOKENS, { auth: member })).body.items.map(
      (i: { name: string }) => i.name,
    );
    expect(names).toHaveLength(2);

    const key = await http(base, 'POST', '/backend/v1/tokens', {
      auth: bearer(tenant, 'admin'),
      body: { name: 'read-only', role: 'viewer' },
    });
    expect(key.status).toBe(200);
    for (const viewer of [bearer(tenant, 'viewer'), `APIToken ${key.body.token.value}`]) {
      const { list, bodies } = await readAll(viewer, names);
      // Nothing the viewer read admits a site.
      const seen = [...new Set(strings(bodies))].filter((s) => s !== '');
      for (const value of seen) expect([value, (await register(value)).status]).not.toEqual([value, 200]);
      expect(seen).not.toContain(uid);
      expect(seen).not.toContain(jwt);
      // The same tokens, every field present: a uid stand-in of its own per token, the JWT blank.
      expect(list.items.map((i: { name: string }) => i.name)).toEqual([...names].sort());
      const fleet = list.items.find((i: { name: string }) => i.name === 'fleet');
      expect(fleet).toMatchObject({ system_metadata: { uid: fleet.uid }, get_spec: { content: '' } });
      expect(fleet.uid).not.toBe(uid);
      expect(new Set(list.items.map((i: { uid: string }) => i.uid)).size).toBe(names.length);
    }

    // A member still reads the uid, and it still admits a site.
    const { list } = await readAll(member, names);
    const fleet = list.items.find((i: { name: string }) => i.name === 'fleet');
    expect(fleet.uid).toBe(uid);
    expect(fleet.system_metadata.uid).toBe(uid);
    expect((await register(fleet.system_metadata.uid)).status).toBe(200);
    const issued = list.items.find((i: { name: string }) => i.name !== 'fleet');
    expect(issued.get_spec.content).toBe(jwt);
  });
});
