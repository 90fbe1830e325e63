import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import { PROMPTS_CONFIG, type PromptsConfig } from '../config';

/**
 * Prisma on a connection pool of this service's own, which the prompt store's hot insert also uses
 * directly, as a named prepared statement: Prisma sends every raw query unnamed, so Postgres parses
 * and plans it each time, which cost a quarter of its CPU per stored record.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  readonly pool: Pool;

  constructor(@Inject(PROMPTS_CONFIG) config: PromptsConfig) {
    const pool = new Pool({ connectionString: config.DATABASE_URL, max: 10 });
    super({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
    this.pool = pool;
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
  }
}
