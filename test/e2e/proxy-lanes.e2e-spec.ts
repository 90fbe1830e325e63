import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { MockUpstream } from '../support/mock-upstream';
import { startProjectsService } from '../support/projects';
import { startPromptsService } from '../support/prompts';
import { startProvidersService } from '../support/providers';
import { startProxyService } from '../support/proxy';
import { http, startGateway } from '../support/stack';
import { tenantOnMock } from '../support/tenant';

/**
 * The message proxy's lanes, with one replica per lane as deployed: which replica answers shows by
 * stopping the other. A text of PROXY_BULK_FROM_CHARS (here 1,000) characters or more goes on the
 * bulk lane, a shorter one on the standard lane, and a bulk request with no bulk replica running
 * goes to the standard one.
 */
describe('message proxy lanes', () => {
  let upstream: MockUpstream;
  let services: INestMicroservice[];
  let standard: INestMicroservice | undefined;
  let bulk: INestMicroservice | undefined;
  let gateway: INestApplication;
  let base: string;
  let key: string;

  // No test here needs a short upstream timeout: 15 s, so a loaded machine does not turn an answer into a 504.
  const proxy = (lane: 'standard' | 'bulk') =>
    startProxyService({ OUTBOUND_ALLOWLIST: '127.0.0.1', PROXY_LANE: lane, UPSTREAM_TIMEOUT_MS: '15000' });

  beforeAll(async () => {
    upstream = await new MockUpstream().start();
    services = [await startPromptsService(), await startProvidersService({ OUTBOUND_ALLOWLIST: '127.0.0.1' })];
    services.push(await startProjectsService());
    standard = await proxy('standard');
    bulk = await proxy('bulk');
    ({ app: gateway, url: base } = await startGateway(undefined, { PROXY_BULK_FROM_CHARS: '1000' }));

    ({ key } = await tenantOnMock(base, upstream, { project: 'lanes' }));
  });

  afterAll(async () => {
    await gateway?.close();
    await standard?.close();
    await bulk?.close();
    for (const s of services ?? []) await s.close();
    await upstream?.stop();
  });

  const ask = (chars: number) =>
    http(base, 'POST', '/vendor/claude/v1/messages', {
      headers: { 'anthropic-version': '2023-06-01', 'x-api-key': key },
      body: { model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x'.repeat(chars) }] },
    });
  const scan = (chars: number) =>
    http(base, 'POST', '/backend/v1/scans', { auth: `Bearer ${key}`, body: { input: 'y'.repeat(chars) } });

  it('answers short and long texts with both replicas running', async () => {
    expect((await ask(10)).status).toBe(200);
    expect((await ask(5000)).status).toBe(200);
  });

  it('takes a long text to the bulk replica and a short one to the standard replica', async () => {
    await standard!.close();
    standard = undefined;
    expect((await ask(5000)).status).toBe(200);
    expect((await scan(5000)).status).toBe(200);
    // A short input in a long body weighs as the body: the bulk lane.
    const padded = await http(base, 'POST', '/backend/v1/prompts', {
      auth: `Bearer ${key}`,
      body: { input: 'hi', provider: 'claude', externalMetadata: { pad: 'z'.repeat(5000) } },
    });
    expect(padded.status).toBe(200);
    // Only the standard lane lost its replica.
    expect((await ask(10)).status).toBe(503);
    expect((await scan(10)).status).toBe(503);
  });

  it('takes a long text to a standard replica when no bulk replica runs', async () => {
    standard = await proxy('standard');
    await bulk!.close();
    bulk = undefined;
    expect((await ask(5000)).status).toBe(200);
    expect((await scan(5000)).status).toBe(200);
    expect((await ask(10)).status).toBe(200);
  });
});
