import { Injectable } from '@nestjs/common';
import type { SigningKey } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';

export interface NewSigningKey {
  kid: string;
  algorithm: string;
  publicJwk: object;
  privateKey: string;
}

@Injectable()
export class SigningKeyRepository {
  constructor(private readonly prisma: PrismaService) {}

  all(): Promise<SigningKey[]> {
    return this.prisma.signingKey.findMany({ orderBy: { createdAt: 'asc' } });
  }

  /**
   * Makes `key` the only active key, retiring the others, under a transaction-scoped advisory
   * lock so that replicas starting together create one key, not one each. When `onlyIfNone` is
   * set and an active key exists, nothing changes.
   */
  async activate(key: NewSigningKey, onlyIfNone: boolean): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('bastion:tokens:signing-keys'))`;
      if (onlyIfNone && (await tx.signingKey.count({ where: { status: 'ACTIVE' } })) > 0) return false;
      await tx.signingKey.updateMany({
        where: { status: 'ACTIVE' },
        data: { status: 'RETIRED', retiredAt: new Date() },
      });
      await tx.signingKey.create({ data: { ...key, status: 'ACTIVE' } });
      return true;
    });
  }
}
