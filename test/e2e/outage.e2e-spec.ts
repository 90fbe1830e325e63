import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { bearer, uniqueTenant } from '@bastion/testing';
import { startAllServices } from '../support/services';
import { http, startGateway, untilStatus } from '../support/stack';

/** What a client sees when the services are down, and that the gateway recovers without a restart. */
// Starting services and the gateway takes more than jest's default 5 s on a loaded machine.
jest.setTimeout(30_000);

describe('gateway with the services down', () => {
  let gateway: INestApplication;
  let base: string;

  beforeAll(async () => {
    ({ app: gateway, url: base } = await startGateway());
  });
  afterAll(() => gateway?.close());

  it('reports 503 on /healthz and on routes, then 200 once every service is back', async () => {
    const auth = bearer(uniqueTenant(), 'viewer');
    const health = await http(base, 'GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.body).toEqual({ status: 'degraded' });
    const list = await http(base, 'GET', '/api/register/namespaces/system/tokens', { auth });
    expect(list.status).toBe(503);
    expect(list.body).toEqual({ code: 14, details: [], message: 'the tokens service is not available' });
    const providers = await http(base, 'GET', '/backend/v1/providers', { auth });
    expect(providers.status).toBe(503);
    expect(providers.body).toEqual({ detail: 'the providers service is not available' });

    let services: INestMicroservice[] = [];
    try {
      services = await startAllServices();
      // Every service answers its health request within the gateway's RPC timeout once the machine lets it.
      const healthy = await untilStatus(200, () => http(base, 'GET', '/healthz'), '/healthz to answer 200');
      expect(healthy.body).toEqual({ status: 'ok' });
      expect((await http(base, 'GET', '/api/register/namespaces/system/tokens', { auth })).status).toBe(200);
    } finally {
      for (const s of services) await s.close();
    }
  });
});
