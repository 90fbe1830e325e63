import type { INestMicroservice } from '@nestjs/common';
import { TokenSubjects } from '@bastion/contracts';
import { connectNats, NatsRpcClient } from '@bastion/messaging';
import { principal as fixturePrincipal, uniqueTenant, untypedRpc, testNatsLogin } from '@bastion/testing';

/** An admin of `tenant`, as the gateway would send it. */
const principal = (tenant: string) => fixturePrincipal('admin', { tenant, sub: 'svc-test' });
import type { NatsConnection } from '@nats-io/transport-node';
import { Client } from 'pg';
import { startTokensService, testEnv } from '../../../test/support/stack';

/** The tokens service on its own: real NATS requests in, real Postgres rows out. */
describe('tokens service over NATS', () => {
  let service: INestMicroservice;
  let nc: NatsConnection;
  let rpc: NatsRpcClient;
  let db: Client;

  beforeAll(async () => {
    service = await startTokensService();
    nc = await connectNats(testNatsLogin(), { name: 'int-test' });
    rpc = new NatsRpcClient(nc, 5000);
    db = new Client({ connectionString: testEnv().DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await nc?.close();
    await service?.close();
  });

  it('stores a created token in the tokens schema with the defaults', async () => {
    const tenant = uniqueTenant();
    const res = await rpc.call(
      untypedRpc<{ system_metadata: { uid: string } }>(TokenSubjects.create),
      {
        principal: principal(tenant),
        namespace: 'system',
        body: { metadata: { name: 'db-check', labels: { a: 'b' } } },
      },
      'int-1',
    );
    const { rows } = await db.query('SELECT * FROM tokens.tokens WHERE uid = $1', [res.system_metadata.uid]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      tenant,
      namespace: 'system',
      name: 'db-check',
      labels: { a: 'b' },
      state: 'VALID',
      type: 'NORMAL',
      disable: false,
      creator_id: 'svc-test',
      revision: 1,
    });
  });

  it('validates payloads on receipt, whoever sent them', async () => {
    await expect(
      rpc.call(
        untypedRpc(TokenSubjects.create),
        { principal: { tenant: 'x', roles: ['root'] }, namespace: 'system', body: { metadata: { name: 'a' } } },
        'int-2',
      ),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' }); // the access guard, before validation
    await expect(
      rpc.call(
        untypedRpc(TokenSubjects.get),
        { principal: principal('x'), namespace: 'Not A Label', name: 'a', responseFormat: 'GET_RSP_FORMAT_DEFAULT' },
        'int-3',
      ),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('namespace') });
  });

  it("keeps every query inside the caller's tenant", async () => {
    const owner = uniqueTenant();
    await rpc.call(
      untypedRpc(TokenSubjects.create),
      { principal: principal(owner), namespace: 'system', body: { metadata: { name: 'scoped' } } },
      'int-4',
    );
    const other = principal(uniqueTenant());
    await expect(
      rpc.call(
        untypedRpc(TokenSubjects.setState),
        { principal: other, namespace: 'system', name: 'scoped', state: 'EXPIRED' },
        'int-5',
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      rpc.call(
        untypedRpc(TokenSubjects.delete),
        { principal: other, namespace: 'system', name: 'scoped', failIfReferred: false },
        'int-6',
      ),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const { rows } = await db.query('SELECT state FROM tokens.tokens WHERE tenant = $1 AND name = $2', [
      owner,
      'scoped',
    ]);
    expect(rows).toEqual([{ state: 'VALID' }]);
  });

  it('bumps the revision on every change', async () => {
    const tenant = uniqueTenant();
    const p = principal(tenant);
    await rpc.call(
      untypedRpc(TokenSubjects.create),
      { principal: p, namespace: 'system', body: { metadata: { name: 'rev' } } },
      'int-7',
    );
    await rpc.call(
      untypedRpc(TokenSubjects.replace),
      { principal: p, namespace: 'system', name: 'rev', body: { metadata: { name: 'rev', description: 'x' } } },
      'int-8',
    );
    const changed = await rpc.call(
      untypedRpc<{ obj: { system_metadata: { revision: string } } }>(TokenSubjects.setState),
      { principal: p, namespace: 'system', name: 'rev', state: 'EXPIRED' },
      'int-9',
    );
    expect(changed.obj.system_metadata.revision).toBe('3');
  });
});
