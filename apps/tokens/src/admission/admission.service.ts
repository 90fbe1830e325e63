import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  type DeleteRegistrationCommand,
  DomainError,
  ErrorCode,
  type ListRegistrationsCommand,
  type RegisterSiteCommand,
  type RegistrationListResponse,
  type RegistrationObject,
  type RegistrationsByTokenCommand,
  type SiteAdmissionEvent,
  TokenEventContracts,
  TokenEvents,
} from '@bastion/contracts';
import { EventPublisher, NATS_CONNECTION } from '@bastion/messaging';
import { PlatformMetrics } from '@bastion/observability';
import type { Counter } from 'prom-client';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { TOKENS_CONFIG, type TokensConfig } from '../config';
import { type AdmissionToken, decideAdmission, looksLikeJwt, type RefusalReason } from '../domain/admission-rules';
import { matchesSelector } from '../domain/label-selector';
import { RefusalLimiter } from '../domain/refusal-limiter';
import { readsAdmissionSecrets } from '../domain/secret-access';
import { secretsEqual, sha256Hex } from '../domain/token-view';
import { SigningKeyService } from '../keys/signing-key.service';
import { TOKENS_LOGGER } from '../logger';
import { parseLabelFilter } from '../tokens/label-filter';
import { TokenRepository } from '../tokens/token.repository';
import { TokenEventPublisher } from '../tokens/token-event.publisher';
import { registrationListItem, registrationObject } from './registration.mapper';
import { RegistrationRepository } from '../tokens/registration.repository';
import { admissionTokenOf, TokenViewSync } from '../tokens/token-view.sync';

/** Names the replica that published an admission event, so it does not count its own refusals twice. */
const ORIGIN_HEADER = 'x-bastion-origin';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

class Refusal extends Error {
  constructor(
    readonly reason: RefusalReason,
    readonly token?: AdmissionToken,
  ) {
    super(reason);
  }
}

/**
 * Site admission: a site presents a token and is admitted or refused. Decisions come from the
 * in-memory view; Postgres records the registration (and re-checks the token in the same
 * statement). Every attempt is audited and published; the site only ever learns "invalid token".
 */
@Injectable()
export class AdmissionService implements OnModuleInit, OnModuleDestroy {
  private readonly limiter: RefusalLimiter;
  private readonly origin = randomUUID();
  private refusals?: Subscription;
  private auditSweeper?: NodeJS.Timeout;
  private readonly retentionMs: number;
  private readonly auditSweepMs: number;
  private readonly admissions: Counter<'outcome' | 'reason'>;

  constructor(
    private readonly sync: TokenViewSync,
    private readonly tokens: TokenRepository,
    private readonly registrations: RegistrationRepository,
    private readonly keys: SigningKeyService,
    private readonly events: EventPublisher,
    private readonly tokenEvents: TokenEventPublisher,
    @Inject(TOKENS_CONFIG) config: TokensConfig,
    @Inject(TOKENS_LOGGER) private readonly logger: Logger,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    metrics: PlatformMetrics,
  ) {
    this.limiter = new RefusalLimiter(config.ADMISSION_REFUSALS_PER_MINUTE, 60_000);
    this.retentionMs = config.ADMISSION_AUDIT_RETENTION_DAYS * 86_400_000;
    this.auditSweepMs = config.ADMISSION_AUDIT_SWEEP_INTERVAL_MS;
    this.admissions = metrics.counter(
      'bastion_site_admissions_total',
      'Site admission attempts by outcome and reason',
      ['outcome', 'reason'],
    );
  }

  /**
   * Every replica counts the refusals of all replicas: each hears the others' refused events (a
   * plain subscription on the JetStream subject), so the limit holds however requests are spread.
   */
  onModuleInit(): void {
    const sweep = () =>
      void this.sweepAudit().catch((err: unknown) => this.logger.error({ err }, 'could not sweep the admission audit'));
    sweep();
    this.auditSweeper = setInterval(sweep, this.auditSweepMs);
    this.auditSweeper.unref();
    this.refusals = this.nc.subscribe(TokenEvents.siteRefused, {
      callback: (err, msg) => {
        if (err || msg.headers?.get(ORIGIN_HEADER) === this.origin) return;
        try {
          const event = msg.json<SiteAdmissionEvent>();
          if (event.reason !== 'rate_limited' && typeof event.sourceAddress === 'string')
            this.limiter.recordRefusal(event.sourceAddress);
        } catch {
          // not an admission event: nothing to count
        }
      },
    });
  }

  onModuleDestroy(): void {
    this.refusals?.unsubscribe();
    clearInterval(this.auditSweeper);
  }

  /** Deletes audit rows past their retention (ADMISSION_AUDIT_RETENTION_DAYS); every replica may run it. */
  async sweepAudit(now = Date.now()): Promise<number> {
    return this.registrations.deleteAttemptsBefore(new Date(now - this.retentionMs));
  }

  async register({ body, passport, sourceAddress }: RegisterSiteCommand): Promise<RegistrationObject> {
    const nodeName = body.metadata.name;
    const siteName = body.spec.passport.cluster_name;
    const attempt = { nodeName, siteName, sourceAddress };
    const retryAfter = this.limiter.blockedFor(sourceAddress);
    if (retryAfter !== undefined) {
      await this.recordRefusal({ ...attempt, reason: 'rate_limited', tenant: null, tokenUid: null });
      throw new DomainError(
        ErrorCode.RESOURCE_EXHAUSTED,
        'too many refused registrations from this address',
        [],
        retryAfter,
      );
    }
    try {
      const token = await this.resolve(body.spec.token);
      const decision = decideAdmission(token, siteName, new Date());
      if (!decision.admit) throw new Refusal(decision.reason, token);
      const admitted = await this.registrations.admit(
        { tokenUid: token!.uid, nodeName, siteName, passport, sourceAddress },
        token!.maxRegistrations !== null,
      );
      if (!admitted) throw new Refusal(await this.reasonFromDatabase(token!, nodeName), token);
      if (admitted.exhaustedRevision !== null) await this.onExhausted(token!.uid);
      this.admissions.inc({ outcome: 'ADMITTED', reason: 'admitted' });
      this.publish({
        ...attempt,
        outcome: 'ADMITTED',
        reason: 'admitted',
        tenant: token!.tenant,
        tokenUid: token!.uid,
      });
      return registrationObject(admitted.registration);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.limiter.recordRefusal(sourceAddress);
      await this.recordRefusal({
        ...attempt,
        reason: err.reason,
        tenant: err.token?.tenant ?? null,
        tokenUid: err.token?.uid ?? null,
      });
      throw new DomainError(ErrorCode.UNAUTHENTICATED, 'invalid token');
    }
  }

  async list({
    principal,
    namespace,
    labelFilter,
    reportFields,
  }: ListRegistrationsCommand): Promise<RegistrationListResponse> {
    const selector = parseLabelFilter(labelFilter);
    const rows = await this.registrations.list(principal.tenant, namespace);
    const reveal = readsAdmissionSecrets(principal);
    // Registrations carry no labels of their own: a selector matches as it would on an empty set.
    const items = rows
      .filter(() => matchesSelector(selector, {}))
      .map((r) => registrationListItem(r, reveal, reportFields ?? false));
    return { items, errors: [] };
  }

  async byToken({ principal, siteToken }: RegistrationsByTokenCommand): Promise<RegistrationListResponse> {
    const token = await this.resolve(siteToken);
    if (!token || token.tenant !== principal.tenant) throw DomainError.notFound('token not found');
    const rows = await this.registrations.byToken(principal.tenant, token.uid);
    const reveal = readsAdmissionSecrets(principal);
    return { items: rows.map((r) => registrationListItem(r, reveal, true)), errors: [] };
  }

  /** An admin deletes a registration: its node name is free for any token again. */
  async deleteRegistration({ principal, namespace, name }: DeleteRegistrationCommand): Promise<Record<string, never>> {
    if (!(await this.registrations.delete(principal.tenant, namespace, name)))
      throw DomainError.notFound(`registration ${name} not found`);
    return {};
  }

  /** The token a presented secret names: a NORMAL token's uid, or a JWT this service signed. */
  private async resolve(secret: string): Promise<AdmissionToken | undefined> {
    if (looksLikeJwt(secret)) {
      const claims = await this.keys.verify(secret);
      if (!claims) throw new Refusal('bad_signature');
      const token = await this.lookup(claims.tokenUid);
      if (!token || token.type !== 'JWT' || !secretsEqual(token.contentHash, sha256Hex(secret))) return undefined;
      return token;
    }
    if (!UUID.test(secret)) return undefined;
    const token = this.sync.view.findBySecret(secret) ?? (await this.lookup(secret));
    // A JWT token's uid is its JWT's readable `sub`, not a secret: such a token admits only with its JWT.
    if (token?.type === 'JWT') throw new Refusal('jwt_required', token);
    return token;
  }

  /**
   * A token the view has not seen yet (created on another replica a moment ago) is read from
   * Postgres once; a deleted one is not.
   */
  private async lookup(uid: string): Promise<AdmissionToken | undefined> {
    const known = this.sync.view.get(uid);
    if (known || this.sync.view.wasDeleted(uid) || !UUID.test(uid)) return known;
    const row = await this.tokens.findByUid(uid);
    if (!row) return undefined;
    this.sync.applyLocal(row);
    return admissionTokenOf(row);
  }

  private async reasonFromDatabase(token: AdmissionToken, nodeName: string): Promise<RefusalReason> {
    if (await this.registrations.heldByOther(token.uid, nodeName)) return 'node_taken';
    const row = await this.tokens.findByUid(token.uid);
    if (row) this.sync.applyLocal(row);
    const decision = decideAdmission(row ? admissionTokenOf(row) : undefined, '', new Date());
    return decision.admit ? 'registrations_exhausted' : decision.reason;
  }

  private async onExhausted(uid: string): Promise<void> {
    const row = await this.tokens.findByUid(uid);
    if (!row) return;
    this.sync.applyLocal(row);
    await this.tokenEvents.stateChanged(row, 'VALID');
  }

  /**
   * Records a refusal in Postgres before the site is answered, and publishes it. A failure to
   * record is logged, not shown to the site (which learns only "invalid token").
   */
  private async recordRefusal(r: RefusalRecord): Promise<void> {
    this.admissions.inc({ outcome: 'REFUSED', reason: r.reason });
    await this.registrations
      .recordRefusal(r)
      .catch((err: unknown) => this.logger.error({ err }, 'could not record a refused admission'));
    this.publish({ ...r, outcome: 'REFUSED' });
  }

  private publish(a: Omit<SiteAdmissionEvent, 'occurredAt'>): void {
    const event: SiteAdmissionEvent = { ...a, occurredAt: new Date().toISOString() };
    const declared = a.outcome === 'ADMITTED' ? TokenEventContracts.siteAdmitted : TokenEventContracts.siteRefused;
    // The audit row in Postgres is the durable record; the event is a notification, sent without
    // waiting for JetStream's ack so the admission path does not pay a round trip for it.
    this.events.notify(declared, event, { [ORIGIN_HEADER]: this.origin });
  }
}

interface RefusalRecord {
  reason: RefusalReason;
  nodeName: string;
  siteName: string;
  sourceAddress: string;
  tenant: string | null;
  tokenUid: string | null;
}
