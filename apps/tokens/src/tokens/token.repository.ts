import { Injectable } from '@nestjs/common';
import { isPrismaNotFound, translatePrismaError } from '@bastion/persistence';
import type { TokenState, TokenType } from '@bastion/contracts';
import type { Token } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';

export interface TokenKey {
  tenant: string;
  namespace: string;
  name: string;
}

export interface NewToken extends TokenKey {
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  description: string;
  disable: boolean;
  type: TokenType;
  siteName: string;
  content: string;
  creatorClass: string;
  creatorId: string;
  expiresAt: Date | null;
  maxRegistrations: number | null;
}

export interface TokenMetadataChange {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  description: string;
  disable: boolean;
}

/** Every Prisma call of the token API. */
@Injectable()
export class TokenRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(token: NewToken): Promise<Token> {
    try {
      return await this.prisma.token.create({ data: token });
    } catch (err) {
      translatePrismaError(err, { alreadyExists: 'Object already exists' });
    }
  }

  find(key: TokenKey): Promise<Token | null> {
    return this.prisma.token.findUnique({ where: { tenant_namespace_name: key } });
  }

  /** Sorted by name, as the API lists them. */
  list(tenant: string, namespace: string): Promise<Token[]> {
    return this.prisma.token.findMany({ where: { tenant, namespace }, orderBy: { name: 'asc' } });
  }

  /** Returns null when the token does not exist. */
  async updateMetadata(key: TokenKey, change: TokenMetadataChange): Promise<Token | null> {
    const rows = await this.prisma.token.updateManyAndReturn({
      where: key,
      data: { ...change, modifiedAt: new Date(), revision: { increment: 1 } },
    });
    return rows[0] ?? null;
  }

  /**
   * Sets the state and returns the token as it was before and after, or null if it does not exist.
   * Making a token VALID makes it usable again: its registration count restarts and an expiration
   * already past is cleared (otherwise the sweeper would expire it again at once).
   */
  async setState(key: TokenKey, state: TokenState): Promise<{ before: Token; after: Token } | null> {
    return this.prisma.$transaction(async (tx) => {
      const before = await tx.token.findUnique({ where: { tenant_namespace_name: key } });
      if (!before) return null;
      const now = new Date();
      const revalidate = state === 'VALID' && before.state !== 'VALID';
      const after = await tx.token.update({
        where: { uid: before.uid },
        data: {
          state,
          modifiedAt: now,
          revision: { increment: 1 },
          ...(revalidate ? { usedRegistrations: 0 } : {}),
          ...(state === 'VALID' && before.expiresAt && before.expiresAt <= now ? { expiresAt: null } : {}),
        },
      });
      return { before, after };
    });
  }

  /** Moves every VALID token whose expiration has passed to EXPIRED; returns them. */
  async expireDue(now: Date): Promise<Token[]> {
    return this.prisma.token.updateManyAndReturn({
      where: { expiresAt: { lte: now }, state: 'VALID' },
      data: { state: 'EXPIRED', modifiedAt: now, revision: { increment: 1 } },
    });
  }

  /**
   * Runs `decide` holding a transaction-scoped advisory lock on (tenant, site), so every replica
   * takes one site's cloud-init calls one at a time. `decide` sees the tenant's JWT tokens bound to
   * the site ('' for none, any namespace), newest first, and answers the token to use: an existing
   * one, or a new one that is created in the same transaction. Answers the token and whether it is new.
   */
  async reuseOrCreateSiteJwt(
    tenant: string,
    siteName: string,
    decide: (tokens: Token[]) => Promise<{ existing: Token } | { create: NewToken }>,
  ): Promise<{ token: Token; created: boolean }> {
    try {
      return await this.prisma.$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${'tokens.cloud-init:' + tenant}), hashtext(${siteName}))`;
          const tokens = await tx.token.findMany({
            where: { tenant, type: 'JWT', siteName },
            orderBy: [{ createdAt: 'desc' }, { uid: 'asc' }],
          });
          const choice = await decide(tokens);
          if ('existing' in choice) return { token: choice.existing, created: false };
          return { token: await tx.token.create({ data: choice.create }), created: true };
          // Waiting for the lock counts against the transaction: a burst of calls for one site queues here.
        },
        { maxWait: 10_000, timeout: 15_000 },
      );
    } catch (err) {
      translatePrismaError(err, { alreadyExists: 'Object already exists' });
    }
  }

  findByUid(uid: string): Promise<Token | null> {
    return this.prisma.token.findUnique({ where: { uid } });
  }

  /** Every token, for warming the admission view. */
  all(): Promise<Token[]> {
    return this.prisma.token.findMany();
  }

  /** Returns the deleted token, or null when there was none. */
  async delete(key: TokenKey): Promise<Token | null> {
    try {
      return await this.prisma.token.delete({ where: { tenant_namespace_name: key } });
    } catch (err) {
      if (isPrismaNotFound(err)) return null;
      throw err;
    }
  }
}
