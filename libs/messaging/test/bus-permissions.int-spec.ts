import { randomUUID } from 'node:crypto';
import {
  ApiKeyEventContracts,
  ApiKeyRpc,
  ProviderEventContracts,
  ProviderRpc,
  ProxyEventContracts,
  ProxySignals,
  ProxyStreams,
  RPC_POLICY,
  TokenRpc,
} from '@bastion/contracts';
import { serviceNatsLogin, testNatsLogin, waitFor } from '@bastion/testing';
import { connect, type NatsConnection, PermissionViolationError } from '@nats-io/transport-node';
import { BUS_ROLES, BUS_USERS, type BusUser, natsPermissions } from '../src/nats/bus-permissions';
import { connectNats } from '../src/nats/nats-connection';

/**
 * The bus permissions as nats-server enforces them: the worker's nats-server runs with the
 * configuration rendered from bus-permissions.ts (test/global-setup.ts), and each connection here
 * logs in as one service's user with its development password.
 */
const url = () => process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const as = (user: BusUser) => connectNats(serviceNatsLogin(user, url()), { name: `perm-${user}` });

/** The next permission violation the server reports on this connection, or undefined within `ms`. */
async function violation(nc: NatsConnection, ms = 5000): Promise<PermissionViolationError | undefined> {
  const timer = new Promise<undefined>((r) => setTimeout(() => r(undefined), ms));
  const seen = (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'error' && s.error instanceof PermissionViolationError) return s.error;
    }
    return undefined;
  })();
  return Promise.race([seen, timer]);
}

describe('NATS permissions per service (nats-server with the rendered authorization)', () => {
  const open: NatsConnection[] = [];
  let observer: NatsConnection;
  const login = async (user: BusUser) => {
    const nc = await as(user);
    open.push(nc);
    return nc;
  };

  beforeAll(async () => {
    observer = await connectNats(testNatsLogin(), { name: 'perm-observer' });
  });
  afterAll(async () => {
    await Promise.all([...open, observer].map((nc) => nc.close()));
  });

  it('refuses a client without credentials and one with a wrong password', async () => {
    await expect(connect({ servers: url() })).rejects.toThrow(/authorization/i);
    await expect(connect({ servers: url(), user: 'gateway', pass: 'guess' })).rejects.toThrow(/authorization/i);
  });

  it('lets only the message proxy ask for a decrypted provider runtime', async () => {
    const asked: string[] = [];
    const sub = observer.subscribe(ProviderRpc.runtime.subject, {
      callback: (_e, m) => {
        asked.push(m.subject);
        m.respond('{}');
      },
    });
    await observer.flush();

    const proxy = await login('message-proxy');
    await expect(proxy.request(ProviderRpc.runtime.subject, '{}', { timeout: 10_000 })).resolves.toBeDefined();
    expect(asked).toHaveLength(1);

    const gateway = await login('gateway');
    const refused = violation(gateway);
    await expect(gateway.request(ProviderRpc.runtime.subject, '{}', { timeout: 500 })).rejects.toThrow();
    expect((await refused)?.subject).toBe(ProviderRpc.runtime.subject);
    expect(asked).toHaveLength(1);
    sub.unsubscribe();
  });

  it('lets no service but the gateway call another service, so none can forge a principal', async () => {
    const tokens = await login('tokens');
    const refused = violation(tokens);
    tokens.publish(
      ApiKeyRpc.create.subject,
      JSON.stringify({ data: { principal: { tenant: 't', roles: ['admin'] } } }),
    );
    expect((await refused)?.subject).toBe(ApiKeyRpc.create.subject);
  });

  it('lets each service publish only its own events', async () => {
    const heard: string[] = [];
    const sub = observer.subscribe(ProxyEventContracts.promptRecorded.subject, {
      callback: (_e, m) => {
        heard.push(m.string());
      },
    });
    await observer.flush();
    const tokens = await login('tokens');
    const refused = violation(tokens);
    tokens.publish(ProxyEventContracts.promptRecorded.subject, 'forged');
    expect((await refused)?.subject).toBe(ProxyEventContracts.promptRecorded.subject);

    const proxy = await login('message-proxy');
    proxy.publish(ProxyEventContracts.promptRecorded.subject, 'real');
    await proxy.flush();
    await observer.flush();
    expect(heard).toEqual(['real']);
    sub.unsubscribe();
  });

  it('lets no service slip a reply into a call made to another service', async () => {
    // The gateway asks projects to resolve an API key; prompts, which also answers the gateway,
    // tries to answer in projects' place (it can learn the gateway's inbox from its own requests).
    const prompts = await login('prompts');
    const forged = '_INBOX.gateway.frames.N0NCE.projects.7';
    const refused = violation(prompts);
    prompts.publish(forged, JSON.stringify({ response: { tenant: 'victim', roles: ['admin'] } }));
    expect((await refused)?.subject).toBe(forged);
    const projects = await login('projects');
    const allowed = violation(projects, 500);
    projects.publish(forged, '{}');
    await projects.flush();
    expect(await allowed).toBeUndefined();
  });

  it('keeps replies private: no service can listen to another one’s inbox or to every event', async () => {
    const prompts = await login('prompts');
    for (const subject of ['_INBOX.>', '_INBOX.message-proxy.>', ProviderEventContracts.changed.subject, '>']) {
      const refused = violation(prompts);
      const sub = prompts.subscribe(subject);
      expect((await refused)?.subject).toBe(subject);
      await expect(sub.closed).resolves.toBeInstanceOf(PermissionViolationError);
    }
  });

  it('lets the gateway signal a stream’s cancel, and only the proxy hear it', async () => {
    const cancel = ProxySignals.cancel.subject(randomUUID());
    const proxy = await login('message-proxy');
    const heard: string[] = [];
    proxy.subscribe(cancel, {
      callback: (_e, m) => {
        heard.push(m.subject);
      },
    });
    await proxy.flush();
    const gateway = await login('gateway');
    gateway.publish(cancel, '');
    await gateway.flush();
    await waitFor(async () => (heard.length > 0 ? true : undefined), 5000, 'the cancel signal');
    expect(heard).toEqual([cancel]);

    const tokens = await login('tokens');
    const refused = violation(tokens);
    tokens.subscribe(ProxySignals.cancel.subject('>'));
    expect(await refused).toBeInstanceOf(PermissionViolationError);
  });
});

describe('the bus roles (static)', () => {
  const answeredBy = (subject: string) =>
    BUS_USERS.filter((u) => (BUS_ROLES[u].answers ?? []).some((c) => c.subject === subject));

  it('gives every request subject of the authorization policy exactly one answering service', () => {
    for (const subject of Object.keys(RPC_POLICY)) expect([subject, answeredBy(subject).length]).toEqual([subject, 1]);
  });

  it('lets the gateway call every request but the three that answer with secrets or stored templates', () => {
    const gateway = natsPermissions('gateway').publish.allow;
    const notCalled = Object.keys(RPC_POLICY).filter((s) => !gateway.includes(s));
    expect(notCalled.sort()).toEqual(
      ['projects.project.runtime.v1', 'prompts.template.input.v1', ProviderRpc.runtime.subject].sort(),
    );
    expect(gateway).toContain(ProxyStreams.messages.subject);
    expect(gateway).toContain(TokenRpc.register.subject);
  });

  it('lets a service reply only into its callers’ frames inboxes, under its own name', () => {
    expect(natsPermissions('message-proxy').publish.allow.filter((s) => s.startsWith('_INBOX'))).toEqual([
      '_INBOX.gateway.frames.*.message-proxy.>',
    ]);
    expect(
      natsPermissions('projects')
        .publish.allow.filter((s) => s.startsWith('_INBOX'))
        .sort(),
    ).toEqual(['_INBOX.gateway.frames.*.projects.>', '_INBOX.message-proxy.frames.*.projects.>']);
    expect(natsPermissions('gateway').subscribe.allow).toEqual([
      '_INBOX.gateway.>',
      ApiKeyEventContracts.revoked.subject,
    ]);
  });
});
