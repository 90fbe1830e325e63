import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';
import { TOKENS_CONFIG, type TokensConfig } from '../config';

/** The tokens service's Prisma client, on the `pg` driver adapter. */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  constructor(@Inject(TOKENS_CONFIG) config: TokensConfig) {
    super({ adapter: new PrismaPg({ connectionString: config.DATABASE_URL, max: 10 }) });
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
