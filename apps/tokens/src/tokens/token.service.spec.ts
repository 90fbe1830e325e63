import { randomUUID } from 'node:crypto';
import { DomainError, TokenEvents } from '@bastion/contracts';
import { loadConfig } from '@bastion/platform';
import { principal, RecordingEventPublisher, silentLogger, tokenCreateBody } from '@bastion/testing';
import { decodeProtectedHeader } from 'jose';
import { TokensConfig } from '../config';
import type { Registration, SigningKey, Token } from '../generated/prisma/client';
import type { NewSigningKey, SigningKeyRepository } from '../keys/signing-key.repository';
import { SigningKeyService } from '../keys/signing-key.service';
import type { RegistrationRepository } from './registration.repository';
import { TokenEventPublisher } from './token-event.publisher';
import type { NewToken, TokenKey, TokenMetadataChange, TokenRepository } from './token.repository';
import { TokenService } from './token.service';
import { TokenViewSync } from './token-view.sync';

/**
 * The service tier: the real TokenService (and its real event publisher, signing keys and admission
 * view) over in-memory fakes of its repositories and of JetStream. Quick, and about the service's
 * own rules: what it stores, what it publishes, what it refuses.
 */

/** The token table in memory, with the repository's semantics (revision, modifiedAt, uniqueness). */
class FakeTokenRepository implements Pick<
  TokenRepository,
  'create' | 'find' | 'list' | 'updateMetadata' | 'setState' | 'expireDue' | 'all' | 'delete' | 'reuseOrCreateSiteJwt'
> {
  readonly rows = new Map<string, Token>();
  failing = false;

  private byKey(k: TokenKey): Token | undefined {
    return [...this.rows.values()].find(
      (t) => t.tenant === k.tenant && t.namespace === k.namespace && t.name === k.name,
    );
  }

  private check(): void {
    if (this.failing) throw new Error('database unavailable');
  }

  async create(t: NewToken): Promise<Token> {
    this.check();
    if (this.byKey(t)) throw DomainError.alreadyExists('Object already exists');
    const row: Token = {
      ...t,
      state: 'VALID',
      createdAt: new Date(),
      modifiedAt: null,
      revision: 1,
      usedRegistrations: 0,
    };
    this.rows.set(row.uid, row);
    return { ...row };
  }

  /** One process, no replicas: the lock the real repository takes has nothing to serialise here. */
  async reuseOrCreateSiteJwt(
    tenant: string,
    siteName: string,
    decide: (tokens: Token[]) => Promise<{ existing: Token } | { create: NewToken }>,
  ): Promise<{ token: Token; created: boolean }> {
    this.check();
    const rows = [...this.rows.values()]
      .filter((t) => t.tenant === tenant && t.type === 'JWT' && t.siteName === siteName)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const choice = await decide(rows.map((t) => ({ ...t })));
    if ('existing' in choice) return { token: choice.existing, created: false };
    return { token: await this.create(choice.create), created: true };
  }

  async find(k: TokenKey): Promise<Token | null> {
    this.check();
    const t = this.byKey(k);
    return t ? { ...t } : null;
  }

  async list(tenant: string, namespace: string): Promise<Token[]> {
    this.check();
    return [...this.rows.values()]
      .filter((t) => t.tenant === tenant && t.namespace === namespace)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async updateMetadata(k: TokenKey, change: TokenMetadataChange): Promise<Token | null> {
    this.check();
    const t = this.byKey(k);
    if (!t) return null;
    Object.assign(t, change, { modifiedAt: new Date(), revision: t.revision + 1 });
    return { ...t };
  }

  async setState(k: TokenKey, state: Token['state']): Promise<{ before: Token; after: Token } | null> {
    this.check();
    const t = this.byKey(k);
    if (!t) return null;
    const before = { ...t };
    Object.assign(
      t,
      { state, modifiedAt: new Date(), revision: t.revision + 1 },
      state === 'VALID' && before.state !== 'VALID' ? { usedRegistrations: 0 } : {},
    );
    return { before, after: { ...t } };
  }

  async expireDue(now: Date): Promise<Token[]> {
    this.check();
    const due = [...this.rows.values()].filter((t) => t.state === 'VALID' && t.expiresAt && t.expiresAt <= now);
    for (const t of due) Object.assign(t, { state: 'EXPIRED', modifiedAt: now, revision: t.revision + 1 });
    return due.map((t) => ({ ...t }));
  }

  async all(): Promise<Token[]> {
    return [...this.rows.values()];
  }

  async delete(k: TokenKey): Promise<Token | null> {
    this.check();
    const t = this.byKey(k);
    if (!t) return null;
    this.rows.delete(t.uid);
    return t;
  }
}

class FakeRegistrationRepository implements Pick<RegistrationRepository, 'byToken'> {
  readonly rows: Registration[] = [];

  async byToken(tenant: string, tokenUid: string): Promise<Registration[]> {
    return this.rows.filter((r) => r.tenant === tenant && r.tokenUid === tokenUid);
  }
}

class FakeSigningKeyRepository implements Pick<SigningKeyRepository, 'all' | 'activate'> {
  readonly rows: SigningKey[] = [];

  async all(): Promise<SigningKey[]> {
    return [...this.rows];
  }

  async activate(key: NewSigningKey, onlyIfNone: boolean): Promise<boolean> {
    if (onlyIfNone && this.rows.some((r) => r.status === 'ACTIVE')) return false;
    for (const r of this.rows)
      if (r.status === 'ACTIVE') Object.assign(r, { status: 'RETIRED', retiredAt: new Date() });
    this.rows.push({ ...key, status: 'ACTIVE', createdAt: new Date(), retiredAt: null } as SigningKey);
    return true;
  }
}

async function build() {
  const config = loadConfig(TokensConfig, {});
  const logger = silentLogger();
  const tokens = new FakeTokenRepository();
  const registrations = new FakeRegistrationRepository();
  const stream = new RecordingEventPublisher();
  const keys = new SigningKeyService(new FakeSigningKeyRepository() as unknown as SigningKeyRepository, config);
  await keys.onModuleInit();
  // The view's JetStream side (onModuleInit) is not started: only what this replica applies locally.
  const sync = new TokenViewSync(tokens as unknown as TokenRepository, undefined as never, logger);
  const service = new TokenService(
    tokens as unknown as TokenRepository,
    registrations as unknown as RegistrationRepository,
    new TokenEventPublisher(stream.asPublisher()),
    keys,
    sync,
    config,
    logger,
  );
  return { service, tokens, registrations, stream, keys, view: sync.view, teardown: () => keys.onModuleDestroy() };
}

type Built = Awaited<ReturnType<typeof build>>;

describe('TokenService (service tier: in-memory repositories and stream)', () => {
  let s: Built;
  beforeEach(async () => {
    s = await build();
  });
  afterEach(() => s.teardown());

  describe('create', () => {
    it('stores a VALID token, adds it to the admission view and publishes created', async () => {
      const p = principal('member');
      const res = await s.service.create({
        principal: p,
        namespace: 'system',
        body: tokenCreateBody('edge-1', { labels: { env: 'prod' } }),
      });
      expect(res.spec).toMatchObject({ state: 'VALID', type: 'NORMAL' });
      const [row] = s.tokens.rows.values();
      expect(row).toMatchObject({
        tenant: p.tenant,
        namespace: 'system',
        name: 'edge-1',
        labels: { env: 'prod' },
        creatorId: p.sub,
        content: '',
      });
      expect(s.view.get(row.uid)).toMatchObject({ state: 'VALID' });
      expect(s.stream.published).toEqual([
        expect.objectContaining({
          subject: TokenEvents.created,
          payload: expect.objectContaining({ uid: row.uid, tenant: p.tenant, revision: 1 }),
        }),
      ]);
    });

    // Roles are the access policy's (RpcAccessGuard, walked by test/e2e/access-policy): the service checks the rest.
    it('refuses an expiration in the past, storing and publishing nothing', async () => {
      await expect(
        s.service.create({
          principal: principal('member'),
          namespace: 'system',
          body: tokenCreateBody('old', { spec: { expiration_timestamp: '2020-01-01T00:00:00Z' } }),
        }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(s.tokens.rows.size).toBe(0);
      expect(s.stream.published).toEqual([]);
    });

    it('surfaces a failed publish to the caller (the token is stored: the event stream is behind)', async () => {
      s.stream.failNext();
      await expect(
        s.service.create({ principal: principal('member'), namespace: 'system', body: tokenCreateBody('x') }),
      ).rejects.toThrow('stream unavailable');
      expect(s.tokens.rows.size).toBe(1);
    });
  });

  describe('replace', () => {
    it('rewrites the metadata, returning left-out fields to their defaults, and publishes replaced', async () => {
      const p = principal('member');
      await s.service.create({ principal: p, namespace: 'system', body: tokenCreateBody('r', { labels: { a: '1' } }) });
      await s.service.replace({
        principal: p,
        namespace: 'system',
        name: 'r',
        body: { metadata: { name: 'r', description: 'new', disable: true } },
      });
      const [row] = s.tokens.rows.values();
      expect(row).toMatchObject({ labels: {}, description: 'new', disable: true, revision: 2 });
      expect(s.view.get(row.uid)).toMatchObject({ disable: true });
      expect(s.stream.subjects()).toEqual([TokenEvents.created, TokenEvents.replaced]);
    });

    it("is NOT_FOUND for another tenant's token, and publishes nothing", async () => {
      const owner = principal('member');
      await s.service.create({ principal: owner, namespace: 'system', body: tokenCreateBody('mine') });
      await expect(
        s.service.replace({
          principal: principal('admin'),
          namespace: 'system',
          name: 'mine',
          body: { metadata: { name: 'mine', disable: true } },
        }),
      ).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(s.stream.subjects()).toEqual([TokenEvents.created]);
      expect([...s.tokens.rows.values()][0].disable).toBe(false);
    });
  });

  describe('setState and the expiry sweep', () => {
    it('publishes state-changed with the previous state, and the view follows', async () => {
      const p = principal('admin');
      await s.service.create({ principal: p, namespace: 'system', body: tokenCreateBody('st') });
      const res = await s.service.setState({ principal: p, namespace: 'system', name: 'st', state: 'EXPIRED' });
      expect(res.obj.system_metadata.revision).toBe('2');
      const [row] = s.tokens.rows.values();
      expect(s.view.get(row.uid)).toMatchObject({ state: 'EXPIRED' });
      expect(s.stream.published[1]).toMatchObject({
        subject: TokenEvents.stateChanged,
        payload: { state: 'EXPIRED', previousState: 'VALID' },
      });
    });

    it('expires what is due (and only that), and survives a failing database', async () => {
      const p = principal('member');
      const soon = new Date(Date.now() + 60_000).toISOString();
      await s.service.create({
        principal: p,
        namespace: 'system',
        body: tokenCreateBody('due', { spec: { expiration_timestamp: soon } }),
      });
      await s.service.create({ principal: p, namespace: 'system', body: tokenCreateBody('later') });
      await s.service.expireDue(new Date(Date.now() + 120_000));
      const byName = new Map([...s.tokens.rows.values()].map((t) => [t.name, t]));
      expect(byName.get('due')!.state).toBe('EXPIRED');
      expect(byName.get('later')!.state).toBe('VALID');
      expect(s.stream.published.at(-1)).toMatchObject({
        subject: TokenEvents.stateChanged,
        payload: { name: 'due', previousState: 'VALID' },
      });
      s.tokens.failing = true;
      await expect(s.service.expireDue()).resolves.toBeUndefined();
    });
  });

  describe('delete', () => {
    it('with fail_if_referred, refuses while a registration refers to the token', async () => {
      const p = principal('admin');
      await s.service.create({ principal: p, namespace: 'system', body: tokenCreateBody('ref') });
      const [row] = s.tokens.rows.values();
      s.registrations.rows.push({
        uid: randomUUID(),
        tenant: p.tenant,
        namespace: 'system',
        name: 'node-1',
        tokenUid: row.uid,
      } as Registration);
      await expect(
        s.service.delete({ principal: p, namespace: 'system', name: 'ref', failIfReferred: true }),
      ).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
      expect(s.tokens.rows.size).toBe(1);
      await s.service.delete({ principal: p, namespace: 'system', name: 'ref', failIfReferred: false });
      expect(s.tokens.rows.size).toBe(0);
      expect(s.view.get(row.uid)).toBeUndefined();
      expect(s.stream.subjects()).toEqual([TokenEvents.created, TokenEvents.deleted]);
    });
  });

  describe('list', () => {
    const report = { reportFields: false, reportStatusFields: false };

    it("lists the caller's tenant only, filtered by label_filter, and refuses a malformed selector", async () => {
      const p = principal('member');
      await s.service.create({
        principal: p,
        namespace: 'system',
        body: tokenCreateBody('b', { labels: { env: 'prod' } }),
      });
      await s.service.create({
        principal: p,
        namespace: 'system',
        body: tokenCreateBody('a', { labels: { env: 'dev' } }),
      });
      await s.service.create({
        principal: principal('member'),
        namespace: 'system',
        body: tokenCreateBody('c', { labels: { env: 'prod' } }),
      });
      const all = await s.service.list({ principal: p, namespace: 'system', ...report });
      expect(all.items.map((i) => i.name)).toEqual(['a', 'b']);
      const prod = await s.service.list({ principal: p, namespace: 'system', labelFilter: 'env=prod', ...report });
      expect(prod.items.map((i) => i.name)).toEqual(['b']);
      await expect(
        s.service.list({ principal: p, namespace: 'system', labelFilter: 'env in (', ...report }),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });
  });

  describe("reads, by the caller's role", () => {
    it("give a viewer (by JWT or API key) neither a NORMAL token's uid nor a JWT token's JWT; a member both", async () => {
      const member = principal('member');
      await s.service.create({ principal: member, namespace: 'system', body: tokenCreateBody('normal') });
      await s.service.cloudInit({ principal: member, provider: 'kvm', siteName: 'paris' });
      const rows = [...s.tokens.rows.values()];
      const secrets = [rows.find((t) => t.type === 'NORMAL')!.uid, rows.find((t) => t.type === 'JWT')!.content];
      const reads = async (p: typeof member) => {
        const list = await s.service.list({
          principal: p,
          namespace: 'system',
          reportFields: true,
          reportStatusFields: true,
        });
        const gets = await Promise.all(
          rows.map((t) =>
            s.service.get({ principal: p, namespace: 'system', name: t.name, responseFormat: 'GET_RSP_FORMAT_STATUS' }),
          ),
        );
        return JSON.stringify([list, gets]);
      };

      const byMember = await reads(member);
      for (const secret of secrets) expect(byMember).toContain(secret);
      for (const viewer of [
        principal('viewer', { tenant: member.tenant }),
        principal('viewer', { tenant: member.tenant, credential: 'key' }),
      ]) {
        const byViewer = await reads(viewer);
        for (const secret of secrets) expect(byViewer).not.toContain(secret);
        // The same tokens, listed by name.
        expect(JSON.parse(byViewer)[0].items.map((i: { name: string }) => i.name)).toHaveLength(2);
      }
    });
  });

  describe('cloudInit', () => {
    it('issues a JWT token signed with the active key, bound to the site when one is named', async () => {
      const p = principal('member');
      const res = await s.service.cloudInit({ principal: p, provider: 'kvm', siteName: 'Site A' });
      expect(res.cloud_init_config).toContain('#cloud-config');
      const [row] = s.tokens.rows.values();
      expect(row).toMatchObject({ type: 'JWT', siteName: 'Site A', namespace: 'system' });
      expect(row.name).toMatch(/^cloud-init-site-a-[0-9a-f]{8}$/);
      expect(decodeProtectedHeader(row.content).kid).toBe(s.keys.jwks().keys[0].kid);
      await expect(s.service.cloudInit({ principal: p, provider: 'mainframe' })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
    });
  });
});
