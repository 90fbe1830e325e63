import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { bearer, uniqueTenant } from '@bastion/testing';
import { http, startGateway, startTokensService } from '../support/stack';

/** What a client sees when the tokens service is down, and that it recovers without a restart. */
describe('gateway with the tokens service down', () => {
  let gateway: INestApplication;
  let base: string;

  beforeAll(async () => {
    ({ app: gateway, url: base } = await startGateway());
  });
  afterAll(() => gateway?.close());

  it('reports 503 on /healthz and on token routes, then 200 once the service is back', async () => {
    const auth = bearer(uniqueTenant(), 'viewer');
    const health = await http(base, 'GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.body.services.tokens).toMatchObject({ status: 'unreachable', error: 'the tokens service is not available' });
    const list = await http(base, 'GET', '/api/register/namespaces/system/tokens', { auth });
    expect(list.status).toBe(503);
    expect(list.body).toEqual({ code: 14, details: [], message: 'the tokens service is not available' });

    let tokens: INestMicroservice | undefined;
    try {
      tokens = await startTokensService();
      expect((await http(base, 'GET', '/healthz')).status).toBe(200);
      expect((await http(base, 'GET', '/api/register/namespaces/system/tokens', { auth })).status).toBe(200);
    } finally {
      await tokens?.close();
    }
  });
});
