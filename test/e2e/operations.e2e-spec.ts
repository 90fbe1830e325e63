import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { OpsServer } from '@bastion/messaging';
import { bearer, uniqueTenant, waitFor } from '@bastion/testing';
import { TcpForwarder } from '../support/tcp-forwarder';
import { startAllServices } from '../support/services';
import { http, startGateway, startTokensService, testEnv, untilStatus } from '../support/stack';

/** Health, readiness and metrics as an operator (or Kubernetes) sees them. */
// Starting services and the gateway takes more than jest's default 5 s on a loaded machine.
jest.setTimeout(30_000);

describe('operations', () => {
  let gateway: INestApplication;
  let base: string;

  beforeAll(async () => {
    ({ app: gateway, url: base } = await startGateway());
  });
  afterAll(() => gateway?.close());

  /**
   * `path` of `url` once it answers 200 (a loaded machine can make a health check miss its own
   * deadlines for a moment); fails if it does not within 15 s.
   */
  const healthy = (url: string, path: string) =>
    untilStatus(200, () => http(url, 'GET', path), `${url}${path} to answer 200`);

  it('turns /readyz red within seconds of a database outage and green again after, with no restart', async () => {
    const pg = new URL(testEnv().DATABASE_URL);
    const forwarder = new TcpForwarder({ host: pg.hostname, port: Number(pg.port || 5432) });
    const port = await forwarder.start();
    pg.port = String(port);
    const others = await startAllServices({ exclude: ['tokens'] });
    const tokens: INestMicroservice = await startTokensService(undefined, { DATABASE_URL: pg.toString() });
    const ops = tokens.get(OpsServer);
    const own = `http://127.0.0.1:${ops.port}`;
    try {
      await healthy(base, '/readyz');
      await healthy(own, '/readyz');
      await healthy(own, '/livez');

      forwarder.cut();
      const red = await untilStatus(503, () => http(base, 'GET', '/readyz'), '/readyz to turn red');
      // The public port says no more than that; the tokens service's own ops port says why.
      expect(red.body).toEqual({ status: 'degraded' });
      const why = await http(own, 'GET', '/readyz');
      expect(why.status).toBe(503);
      expect(why.body.checks.nats).toBe('ok');
      expect(why.body.checks.database).not.toBe('ok');
      expect((await http(own, 'GET', '/livez')).status).toBe(200);
      expect((await http(base, 'GET', '/readyz?self')).status).toBe(200);

      forwarder.restore();
      await waitFor(
        async () => ((await http(base, 'GET', '/readyz')).status === 200 ? true : undefined),
        15_000,
        '/readyz to turn green',
      );
      const auth = bearer(uniqueTenant(), 'viewer');
      expect((await http(base, 'GET', '/api/register/namespaces/system/tokens', { auth })).status).toBe(200);
    } finally {
      await tokens.close();
      for (const s of others) await s.close();
      await forwarder.stop();
    }
  });

  it('serves /livez, /readyz and /metrics beside every service', async () => {
    const services = await startAllServices();
    try {
      for (const s of services) {
        const own = `http://127.0.0.1:${s.get(OpsServer).port}`;
        await healthy(own, '/livez');
        const ready = await healthy(own, '/readyz');
        expect(String((await http(own, 'GET', '/metrics')).body)).toContain(`service="${ready.body.service}"`);
      }
    } finally {
      for (const s of services) await s.close();
    }
  });

  it('counts requests by route and status on the gateway /metrics, and by subject on a service', async () => {
    const tokens = await startTokensService();
    try {
      const auth = bearer(uniqueTenant(), 'viewer');
      await http(base, 'GET', '/api/register/namespaces/system/tokens', { auth });
      await http(base, 'GET', '/api/register/namespaces/system/tokens/missing', { auth });
      await http(base, 'GET', '/api/register/namespaces/system/tokens');
      // Off the public port: only the gateway's ops port serves /metrics.
      expect((await http(base, 'GET', '/metrics')).status).toBe(404);
      const metrics = await http(`http://127.0.0.1:${gateway.get(OpsServer).port}`, 'GET', '/metrics');
      expect(metrics.status).toBe(200);
      const text = String(metrics.body);
      expect(text).toMatch(
        /bastion_http_requests_total\{[^}]*method="GET",route="\/api\/register\/namespaces\/:namespace\/tokens",status="200"[^}]*\} [1-9]/,
      );
      expect(text).toMatch(
        /bastion_http_requests_total\{[^}]*route="\/api\/register\/namespaces\/:namespace\/tokens\/:name",status="404"[^}]*\} [1-9]/,
      );
      expect(text).toMatch(/bastion_http_requests_total\{[^}]*status="401"[^}]*\} [1-9]/);
      expect(text).toContain('bastion_http_request_duration_seconds_bucket');
      const own = await http(`http://127.0.0.1:${tokens.get(OpsServer).port}`, 'GET', '/metrics');
      expect(String(own.body)).toMatch(
        /bastion_rpc_requests_total\{[^}]*subject="tokens.token.list.v1",outcome="ok"[^}]*\} [1-9]/,
      );
    } finally {
      await tokens.close();
    }
  });
});
