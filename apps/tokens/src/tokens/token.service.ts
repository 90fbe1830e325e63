import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  type CloudInitCommand,
  type CreateTokenCommand,
  type DeleteTokenCommand,
  DomainError,
  type GetTokenCommand,
  type ListTokensQueryCommand,
  type ObjectRef,
  type Principal,
  type ReplaceTokenCommand,
  type SetTokenStateCommand,
  type TokenCreateResponse,
  type TokenGetResponse,
  type TokenListResponse,
  type TokenObjectChangeResponse,
  type TokenType,
} from '@bastion/contracts';
import type { Logger } from 'pino';
import { RegistrationRepository } from './registration.repository';
import { admissionTokenOf, TokenViewSync } from './token-view.sync';
import {
  CLOUD_INIT_PROVIDERS,
  type CloudInitProvider,
  cloudInitProvider,
  renderCloudInit,
  reusableSiteJwt,
} from '../cloud-init/cloud-init';
import { TOKENS_CONFIG, type TokensConfig } from '../config';
import { matchesSelector } from '../domain/label-selector';
import { readsAdmissionSecrets } from '../domain/secret-access';
import type { Token } from '../generated/prisma/client';
import { SigningKeyService } from '../keys/signing-key.service';
import { TOKENS_LOGGER } from '../logger';
import { CREATOR_CLASS } from './creator';
import { parseLabelFilter } from './label-filter';
import { TokenEventPublisher } from './token-event.publisher';
import { createResponse, getResponse, listItem, objectChangeResponse } from './token.mapper';
import { type NewToken, type TokenKey, TokenRepository } from './token.repository';

export { CREATOR_CLASS };

interface NewTokenSpec {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  description?: string;
  disable?: boolean;
  type: TokenType;
  siteName: string;
  expiresAt: Date | null;
  maxRegistrations: number | null;
}

/** The token API's rules: who may do what, defaults, JWT issuance, and the events each change publishes. */
@Injectable()
export class TokenService implements OnModuleInit, OnModuleDestroy {
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly tokens: TokenRepository,
    private readonly registrations: RegistrationRepository,
    private readonly events: TokenEventPublisher,
    private readonly keys: SigningKeyService,
    private readonly sync: TokenViewSync,
    @Inject(TOKENS_CONFIG) private readonly config: TokensConfig,
    @Inject(TOKENS_LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    this.sweeper = setInterval(() => void this.expireDue(), this.config.EXPIRY_SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  async create({ principal, namespace, body }: CreateTokenCommand): Promise<TokenCreateResponse> {
    const m = body.metadata;
    const expiresAt = body.spec?.expiration_timestamp ? new Date(body.spec.expiration_timestamp) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw DomainError.invalid('spec.expiration_timestamp must be in the future', [
        { loc: ['body', 'spec', 'expiration_timestamp'], msg: 'must be in the future', type: 'value' },
      ]);
    }
    const token = await this.issue(principal, {
      ...m,
      namespace,
      type: body.spec?.type ?? 'NORMAL',
      siteName: body.spec?.site_name ?? '',
      expiresAt,
      maxRegistrations: body.spec?.max_registrations ?? null,
    });
    return createResponse(token);
  }

  /** Replace rewrites the metadata only; fields left out return to their defaults. */
  async replace({ principal, namespace, name, body }: ReplaceTokenCommand): Promise<Record<string, never>> {
    const m = body.metadata;
    const token = await this.tokens.updateMetadata(key(principal, namespace, name), {
      labels: m.labels ?? {},
      annotations: m.annotations ?? {},
      description: m.description ?? '',
      disable: m.disable ?? false,
    });
    if (!token) throw notFound(namespace, name);
    this.sync.applyLocal(token);
    await this.events.replaced(token);
    return {};
  }

  async list({
    principal,
    namespace,
    labelFilter,
    reportFields,
    reportStatusFields,
  }: ListTokensQueryCommand): Promise<TokenListResponse> {
    const selector = parseLabelFilter(labelFilter);
    const rows = await this.tokens.list(principal.tenant, namespace);
    const reveal = readsAdmissionSecrets(principal);
    const items = rows
      .filter((t) => matchesSelector(selector, t.labels as Record<string, string>))
      .map((t) => listItem(t, reveal, reportFields, reportStatusFields));
    return { items, errors: [] };
  }

  async get({ principal, namespace, name, responseFormat }: GetTokenCommand): Promise<TokenGetResponse> {
    const token = await this.tokens.find(key(principal, namespace, name));
    if (!token) throw notFound(namespace, name);
    const referring = responseFormat === 'GET_RSP_FORMAT_REFERRING_OBJECTS' ? await this.referringObjects(token) : [];
    return getResponse(token, readsAdmissionSecrets(principal), responseFormat, referring);
  }

  async delete({ principal, namespace, name, failIfReferred }: DeleteTokenCommand): Promise<Record<string, never>> {
    const k = key(principal, namespace, name);
    if (failIfReferred) {
      const token = await this.tokens.find(k);
      if (!token) throw notFound(namespace, name);
      const referring = await this.referringObjects(token);
      if (referring.length > 0) {
        throw DomainError.failedPrecondition(
          `${name} is referred to by ${referring.length} site registration(s) and fail_if_referred is set`,
        );
      }
    }
    const deleted = await this.tokens.delete(k);
    if (!deleted) throw notFound(namespace, name);
    this.sync.removeLocal(deleted.uid);
    await this.events.deleted(deleted);
    return {};
  }

  async setState({ principal, namespace, name, state }: SetTokenStateCommand): Promise<TokenObjectChangeResponse> {
    const change = await this.tokens.setState(key(principal, namespace, name), state);
    if (!change) throw notFound(namespace, name);
    this.sync.applyLocal(change.after);
    await this.events.stateChanged(change.after, change.before.state);
    return objectChangeResponse(change.after, readsAdmissionSecrets(principal));
  }

  /**
   * The cloud-init of a site. Its token is the newest JWT token bound to the site that would admit
   * it now (and whose JWT still verifies); only when there is none is a new one issued, so a site
   * tool that first creates its JWT token, or calls again, gets that same JWT. Calls for one site
   * are taken one at a time across replicas (a Postgres advisory lock), so concurrent calls do not
   * each issue a token.
   */
  async cloudInit({ principal, provider, siteName }: CloudInitCommand): Promise<{ cloud_init_config: string }> {
    const kind = cloudInitProvider(provider);
    if (!kind) {
      throw DomainError.invalid(`unsupported provider "${provider}"; supported: ${CLOUD_INIT_PROVIDERS.join(', ')}`, [
        { loc: ['query', 'provider'], msg: `must be one of ${CLOUD_INIT_PROVIDERS.join(', ')}`, type: 'enum' },
      ]);
    }
    const site = siteName ?? '';
    const { token, created } = await this.tokens.reuseOrCreateSiteJwt(principal.tenant, site, async (rows) => {
      const now = new Date();
      const candidates = rows.map((t) => ({ ...admissionTokenOf(t), content: t.content, row: t }));
      for (let rest = candidates; ;) {
        const usable = reusableSiteJwt(rest, site, now);
        if (!usable) break;
        if (await this.keys.verify(usable.content)) return { existing: usable.row };
        rest = rest.slice(rest.indexOf(usable) + 1);
      }
      return { create: await this.newToken(principal, this.cloudInitSpec(kind, site)) };
    });
    if (created) await this.announce(token);
    return { cloud_init_config: renderCloudInit(token.content) };
  }

  private cloudInitSpec(provider: CloudInitProvider, siteName: string): NewTokenSpec {
    return {
      name: cloudInitTokenName(siteName, randomBytes(4).toString('hex')),
      namespace: 'system',
      labels: { 'bastion.io/issued-by': 'cloud-init', 'bastion.io/provider': provider },
      description: siteName ? `cloud-init (${provider}) for site ${siteName}` : `cloud-init (${provider}), any site`,
      type: 'JWT',
      siteName,
      expiresAt: null,
      maxRegistrations: null,
    };
  }

  /** Moves tokens past their expiration to EXPIRED, with the usual event. */
  async expireDue(now = new Date()): Promise<void> {
    try {
      for (const token of await this.tokens.expireDue(now)) {
        this.sync.applyLocal(token);
        await this.events.stateChanged(token, 'VALID');
      }
    } catch (err) {
      this.logger.error({ err }, 'expiry sweep failed');
    }
  }

  private async issue(principal: Principal, spec: NewTokenSpec): Promise<Token> {
    const token = await this.tokens.create(await this.newToken(principal, spec));
    await this.announce(token);
    return token;
  }

  /** The row of a new token, its JWT signed when it is of type JWT. */
  private async newToken(principal: Principal, spec: NewTokenSpec): Promise<NewToken> {
    const uid = randomUUID();
    const content =
      spec.type === 'JWT'
        ? await this.keys.sign({
            tokenUid: uid,
            tenant: principal.tenant,
            siteName: spec.siteName || undefined,
            expiresAt: spec.expiresAt,
          })
        : '';
    return {
      uid,
      tenant: principal.tenant,
      namespace: spec.namespace,
      name: spec.name,
      labels: spec.labels ?? {},
      annotations: spec.annotations ?? {},
      description: spec.description ?? '',
      disable: spec.disable ?? false,
      type: spec.type,
      siteName: spec.siteName,
      content,
      creatorClass: CREATOR_CLASS,
      creatorId: principal.sub,
      expiresAt: spec.expiresAt,
      maxRegistrations: spec.maxRegistrations,
    };
  }

  /** A new token reaches this replica's admission view at once, the others through its event. */
  private async announce(token: Token): Promise<void> {
    this.sync.applyLocal(token);
    await this.events.created(token);
  }

  /** Site registrations made with the token refer to it. */
  private async referringObjects(token: Token): Promise<ObjectRef[]> {
    const rows = await this.registrations.byToken(token.tenant, token.uid);
    return rows.map((r) => ({
      kind: 'registration',
      name: r.name,
      namespace: r.namespace,
      tenant: r.tenant,
      uid: r.uid,
    }));
  }
}

/** `cloud-init-<site>-<random>`, cut to a DNS label. */
function cloudInitTokenName(siteName: string | undefined, suffix: string): string {
  const site = (siteName || 'any')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `cloud-init-${site || 'site'}-${suffix}`.replace(/-+/g, '-');
}

function key(principal: Principal, namespace: string, name: string): TokenKey {
  return { tenant: principal.tenant, namespace, name };
}

function notFound(namespace: string, name: string): DomainError {
  return DomainError.notFound(`ves.io.schema.token.Object: ${name} does not exist in namespace ${namespace}`);
}
