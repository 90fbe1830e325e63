import { createServer, request, type Agent, type RequestOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressGuard } from '../address/address-guard';
import { parseAllowlist } from '../address/allowlist';
import { systemResolver } from '../address/guarded-lookup';
import { OutboundError } from '../errors/outbound-error';
import { createGuardedAgents, type GuardedAgents } from './guarded-agents';

/**
 * The agents are the last line: whatever builds the request (the client, or code that bypasses
 * it with a raw node:http call and our agent), the socket is only opened to a checked address.
 */
describe('guarded agents', () => {
  const server = createServer((_req, res) => res.end('ok'));
  let port: number;
  const agentsList: GuardedAgents[] = [];
  const agents = (allowlist = '') => {
    const a = createGuardedAgents(new AddressGuard(parseAllowlist(allowlist)), systemResolver);
    agentsList.push(a);
    return a;
  };

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agentsList.forEach((a) => (a.http.destroy(), a.https.destroy()));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const get = (agent: Agent, options: RequestOptions): Promise<{ status?: number; error?: Error }> =>
    new Promise((resolve) => {
      const req = request({ ...options, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode }));
      });
      req.on('error', (error) => resolve({ error }));
      req.end();
    });

  it('refuses an IP literal that never goes through DNS', async () => {
    const out = await get(agents().http, { host: '127.0.0.1', port });
    expect(out.error).toBeInstanceOf(OutboundError);
    expect(out.error?.message).toContain('127.0.0.1 is a loopback address');
  });

  it('refuses a name through the guarded lookup', async () => {
    const out = await get(agents().http, { host: 'localhost', port });
    expect((out.error as OutboundError).kind).toBe('blocked_address');
  });

  it('refuses unix sockets outright, allowlist or not', async () => {
    const out = await get(agents('localhost, 127.0.0.1').http, { socketPath: '/var/run/docker.sock', path: '/info' });
    expect(out.error?.message).toContain('unix socket');
  });

  it('connects when the allowlist covers the address', async () => {
    expect(await get(agents('127.0.0.1').http, { host: '127.0.0.1', port })).toEqual({ status: 200 });
    expect(await get(agents('localhost').http, { host: 'localhost', port })).toEqual({ status: 200 });
  });
});
