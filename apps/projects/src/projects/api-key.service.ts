import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  type ApiKeyCreated,
  ApiKeyEventContracts,
  apiKeyHashesMatch,
  type ApiKeyIdCommand,
  type ApiKeyRevokedEvent,
  type ApiKeyView,
  type CreateApiKeyCommand,
  DEFAULT_PAGE_SIZE,
  DomainError,
  type ListApiKeysCommand,
  type MessageResponse,
  newApiKey,
  type Page,
  type ResolveApiKeyQuery,
  type ResolvedApiKey,
} from '@bastion/contracts';
import { decodeCursor, paginate } from '@bastion/persistence';
import { EventPublisher } from '@bastion/messaging';
import { isUuid } from '../domain/versions';
import { ProjectRepository } from './project.repository';
import { apiKeyView, resolvedApiKey } from './api-key.mapper';
import { ApiKeyRepository } from './api-key.repository';

/** How stale `lastUsedAt` may get before a resolve writes it again. */
const LAST_USED_PRECISION_MS = 60_000;

/**
 * API keys: made and revoked by the tenant's admins with their own JWT, listed and read by any
 * tenant principal (RPC_POLICY says who calls); resolved by the gateway on a cache miss. The value exists only in the create answer.
 */
@Injectable()
export class ApiKeyService {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly projects: ProjectRepository,
    private readonly events: EventPublisher,
  ) {}

  async create({ principal, body }: CreateApiKeyCommand): Promise<{ token: ApiKeyCreated }> {
    const now = new Date();
    const expiresAt = body.expiresAt === undefined ? null : new Date(body.expiresAt);
    if (expiresAt && expiresAt <= now) {
      throw DomainError.invalid('expiresAt must be in the future', [
        { loc: ['body', 'expiresAt'], msg: 'must be in the future', type: 'value_error' },
      ]);
    }
    let projectId: string | null = null;
    if (body.projectId !== undefined) {
      const ref = body.projectId;
      const project = isUuid(ref)
        ? await this.projects.findById(principal.tenant, ref.toLowerCase())
        : await this.projects.findByName(principal.tenant, ref);
      if (!project) throw DomainError.notFound(`project ${ref} not found`);
      projectId = project.id;
    }
    const id = randomUUID();
    const { value, hash } = newApiKey(id);
    const key = await this.keys.create({
      id,
      tenant: principal.tenant,
      name: body.name,
      projectId,
      role: body.role ?? 'member',
      machine: body.machine ?? false,
      secretHash: hash,
      expiresAt,
      createdBy: principal.sub,
      createdAt: now,
      lastUsedAt: null,
    });
    return { token: { ...apiKeyView(key), value } };
  }

  async list({ principal, limit, cursor, projectId }: ListApiKeysCommand): Promise<Page<'tokens', ApiKeyView>> {
    const size = limit ?? DEFAULT_PAGE_SIZE;
    const c = cursor ? decodeCursor(cursor) : undefined;
    const page = paginate(await this.keys.page(principal.tenant, projectId?.toLowerCase(), c, size), size, c);
    return { tokens: page.items.map(apiKeyView), next: page.next, prev: page.prev };
  }

  async get({ principal, id }: ApiKeyIdCommand): Promise<{ token: ApiKeyView }> {
    const key = await this.keys.find(principal.tenant, id.toLowerCase());
    if (!key) throw DomainError.notFound(`token ${id} not found`);
    return { token: apiKeyView(key) };
  }

  async delete({ principal, id }: ApiKeyIdCommand): Promise<MessageResponse> {
    if (!(await this.keys.delete(principal.tenant, id.toLowerCase())))
      throw DomainError.notFound(`token ${id} not found`);
    await this.revoked(principal.tenant, [id.toLowerCase()]);
    return { message: `Token ${id} deleted` };
  }

  /** The project went: so do its keys. */
  async projectDeleted(tenant: string, projectId: string): Promise<void> {
    await this.revoked(tenant, await this.keys.deleteOfProject(tenant, projectId));
  }

  /**
   * For the gateway. An unknown key is NOT_FOUND; the gateway checks the hash and the expiry. The
   * lookup counts as a use (`lastUsedAt`) only when the hash of the presented secret matches and the
   * key has not expired: a known id with a wrong secret must not keep an unused key looking alive.
   */
  async resolve({ id, secretHash }: ResolveApiKeyQuery): Promise<ResolvedApiKey> {
    const key = await this.keys.findAnyTenant(id.toLowerCase());
    if (!key) throw DomainError.notFound('no such key');
    const now = new Date();
    const used =
      secretHash !== undefined &&
      apiKeyHashesMatch(secretHash, key.secretHash) &&
      !(key.expiresAt && key.expiresAt <= now);
    if (used && (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_PRECISION_MS)) {
      await this.keys.touch(key.id, now, new Date(now.getTime() - LAST_USED_PRECISION_MS));
    }
    return resolvedApiKey(key);
  }

  /** Tells every gateway to forget the keys now. */
  private async revoked(tenant: string, ids: string[]): Promise<void> {
    for (const id of ids) {
      const event: ApiKeyRevokedEvent = { id, tenant, occurredAt: new Date().toISOString() };
      await this.events.publish(ApiKeyEventContracts.revoked, event);
    }
  }
}
