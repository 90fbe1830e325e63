import { TokenSubjects } from '@bastion/contracts';
import { principal as fixturePrincipal, uniqueTenant, untypedRpc } from '@bastion/testing';

/** An admin of `tenant`, as the gateway would send it. */
const principal = (tenant: string) => fixturePrincipal('admin', { tenant, sub: 'svc-test' });
import { serviceUnderTest, startTokensService } from '../../../test/support/stack';

/** The tokens service on its own: real NATS requests in, real Postgres rows out. */
describe('tokens service over NATS', () => {
  const svc = serviceUnderTest(() => startTokensService(), { name: 'int-test' });

  it('stores a created token in the tokens schema with the defaults', async () => {
    const tenant = uniqueTenant();
    const res = await svc.rpc.call(
      untypedRpc<{ system_metadata: { uid: string } }>(TokenSubjects.create),
      {
        principal: principal(tenant),
        namespace: 'system',
        body: { metadata: { name: 'db-check', labels: { a: 'b' } } },
      },
      'int-1',
    );
    const { rows } = await svc.db.query('SELECT * FROM tokens.tokens WHERE uid = $1', [res.system_metadata.uid]);
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
      svc.rpc.call(
        untypedRpc(TokenSubjects.create),
        { principal: { tenant: 'x', roles: ['root'] }, namespace: 'system', body: { metadata: { name: 'a' } } },
        'int-2',
      ),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' }); // the access guard, before validation
    await expect(
      svc.rpc.call(
        untypedRpc(TokenSubjects.get),
        { principal: principal('x'), namespace: 'Not A Label', name: 'a', responseFormat: 'GET_RSP_FORMAT_DEFAULT' },
        'int-3',
      ),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('namespace') });
  });

  it("keeps every query inside the caller's tenant", async () => {
    const owner = uniqueTenant();
    await svc.rpc.call(
      untypedRpc(TokenSubjects.create),
      { principal: principal(owner), namespace: 'system', body: { metadata: { name: 'scoped' } } },
      'int-4',
    );
    const other = principal(uniqueTenant());
    await expect(
      svc.rpc.call(
        untypedRpc(TokenSubjects.setState),
        { principal: other, namespace: 'system', name: 'scoped', state: 'EXPIRED' },
        'int-5',
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      svc.rpc.call(
        untypedRpc(TokenSubjects.delete),
        { principal: other, namespace: 'system', name: 'scoped', failIfReferred: false },
        'int-6',
      ),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const { rows } = await svc.db.query('SELECT state FROM tokens.tokens WHERE tenant = $1 AND name = $2', [
      owner,
      'scoped',
    ]);
    expect(rows).toEqual([{ state: 'VALID' }]);
  });

  it('bumps the revision on every change', async () => {
    const tenant = uniqueTenant();
    const p = principal(tenant);
    await svc.rpc.call(
      untypedRpc(TokenSubjects.create),
      { principal: p, namespace: 'system', body: { metadata: { name: 'rev' } } },
      'int-7',
    );
    await svc.rpc.call(
      untypedRpc(TokenSubjects.replace),
      { principal: p, namespace: 'system', name: 'rev', body: { metadata: { name: 'rev', description: 'x' } } },
      'int-8',
    );
    const changed = await svc.rpc.call(
      untypedRpc<{ obj: { system_metadata: { revision: string } } }>(TokenSubjects.setState),
      { principal: p, namespace: 'system', name: 'rev', state: 'EXPIRED' },
      'int-9',
    );
    expect(changed.obj.system_metadata.revision).toBe('3');
  });
});
