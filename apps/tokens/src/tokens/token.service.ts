import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  type CreateTokenCommand,
  type DeleteTokenCommand,
  DomainError,
  type GetTokenCommand,
  hasRole,
  type ListTokensQueryCommand,
  type ObjectRef,
  type Principal,
  type ReplaceTokenCommand,
  type Role,
  type SetTokenStateCommand,
  TokenEvents,
  type TokenCreateResponse,
  type TokenEvent,
  type TokenGetResponse,
  type TokenListResponse,
  type TokenObjectChangeResponse,
  type TokenStateChangedEvent,
} from '@bastion/contracts';
import { EventPublisher } from '@bastion/platform';
import { parseSelector, matchesSelector, SelectorSyntaxError, type Selector } from '../domain/label-selector';
import type { Token } from '../generated/prisma/client';
import { createResponse, getResponse, listItem, objectChangeResponse } from './token.mapper';
import { type TokenKey, TokenRepository } from './token.repository';

/** The component named in system_metadata.creator_class of what this service writes. */
export const CREATOR_CLASS = 'bastion-tokens';

/** The token API's rules: who may do what, defaults, and the events each change publishes. */
@Injectable()
export class TokenService {
  constructor(
    private readonly tokens: TokenRepository,
    private readonly events: EventPublisher,
  ) {}

  async create({ principal, namespace, body }: CreateTokenCommand): Promise<TokenCreateResponse> {
    requireRole(principal, 'member');
    const m = body.metadata;
    const token = await this.tokens.create({
      uid: randomUUID(),
      tenant: principal.tenant,
      namespace,
      name: m.name,
      labels: m.labels ?? {},
      annotations: m.annotations ?? {},
      description: m.description ?? '',
      disable: m.disable ?? false,
      type: body.spec?.type ?? 'NORMAL',
      siteName: body.spec?.site_name ?? '',
      content: '',
      creatorClass: CREATOR_CLASS,
      creatorId: principal.sub,
    });
    await this.publish(TokenEvents.created, token);
    return createResponse(token);
  }

  /** Replace rewrites the metadata only; fields left out return to their defaults. */
  async replace({ principal, namespace, name, body }: ReplaceTokenCommand): Promise<Record<string, never>> {
    requireRole(principal, 'member');
    const m = body.metadata;
    const token = await this.tokens.updateMetadata(key(principal, namespace, name), {
      labels: m.labels ?? {},
      annotations: m.annotations ?? {},
      description: m.description ?? '',
      disable: m.disable ?? false,
    });
    if (!token) throw notFound(namespace, name);
    await this.publish(TokenEvents.replaced, token);
    return {};
  }

  async list({ principal, namespace, labelFilter, reportFields, reportStatusFields }: ListTokensQueryCommand): Promise<TokenListResponse> {
    requireRole(principal, 'viewer');
    const selector = parseLabelFilter(labelFilter);
    const rows = await this.tokens.list(principal.tenant, namespace);
    const items = rows
      .filter((t) => matchesSelector(selector, t.labels as Record<string, string>))
      .map((t) => listItem(t, reportFields, reportStatusFields));
    return { items, errors: [] };
  }

  async get({ principal, namespace, name, responseFormat }: GetTokenCommand): Promise<TokenGetResponse> {
    requireRole(principal, 'viewer');
    const token = await this.tokens.find(key(principal, namespace, name));
    if (!token) throw notFound(namespace, name);
    return getResponse(token, responseFormat, await this.referringObjects(token));
  }

  async delete({ principal, namespace, name, failIfReferred }: DeleteTokenCommand): Promise<Record<string, never>> {
    requireRole(principal, 'admin');
    const k = key(principal, namespace, name);
    if (failIfReferred) {
      const token = await this.tokens.find(k);
      if (!token) throw notFound(namespace, name);
      const referring = await this.referringObjects(token);
      if (referring.length > 0) {
        throw DomainError.failedPrecondition(`${name} is referred to by ${referring.length} object(s) and fail_if_referred is set`);
      }
    }
    const deleted = await this.tokens.delete(k);
    if (!deleted) throw notFound(namespace, name);
    await this.publish(TokenEvents.deleted, deleted);
    return {};
  }

  async setState({ principal, namespace, name, state }: SetTokenStateCommand): Promise<TokenObjectChangeResponse> {
    requireRole(principal, 'admin');
    const change = await this.tokens.setState(key(principal, namespace, name), state);
    if (!change) throw notFound(namespace, name);
    const event: TokenStateChangedEvent = { ...eventOf(change.after), previousState: change.before.state };
    await this.events.publish(TokenEvents.stateChanged, event);
    return objectChangeResponse(change.after);
  }

  /** Objects that refer to a token. Nothing refers to tokens yet; site registrations will. */
  private async referringObjects(_token: Token): Promise<ObjectRef[]> {
    return [];
  }

  private publish(subject: string, token: Token): Promise<void> {
    return this.events.publish(subject, eventOf(token));
  }
}

function eventOf(t: Token): TokenEvent {
  return {
    uid: t.uid,
    tenant: t.tenant,
    namespace: t.namespace,
    name: t.name,
    state: t.state,
    disable: t.disable,
    occurredAt: new Date().toISOString(),
  };
}

function key(principal: Principal, namespace: string, name: string): TokenKey {
  return { tenant: principal.tenant, namespace, name };
}

function requireRole(principal: Principal, role: Role): void {
  if (!hasRole(principal, role)) throw DomainError.permissionDenied(`this operation needs the ${role} role`);
}

function notFound(namespace: string, name: string): DomainError {
  return DomainError.notFound(`ves.io.schema.token.Object: ${name} does not exist in namespace ${namespace}`);
}

function parseLabelFilter(filter: string | undefined): Selector {
  if (!filter) return [];
  try {
    return parseSelector(filter);
  } catch (err) {
    if (err instanceof SelectorSyntaxError) {
      throw DomainError.invalid(`invalid label_filter: ${err.message}`, [{ loc: ['query', 'label_filter'], msg: err.message, type: 'selector' }]);
    }
    throw err;
  }
}
