import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import type { Logger } from 'pino';
import { PrismaClient } from '../generated/prisma/client';
import { PROMPTS_CONFIG, PROMPTS_LOGGER, type PromptsConfig } from '../config';

/**
 * Prisma on a connection pool of this service's own, which the prompt store's hot insert also uses
 * directly, as a named prepared statement: Prisma sends every raw query unnamed, so Postgres parses
 * and plans it each time, which cost a quarter of its CPU per stored record. The pool is this
 * service's to watch and to close: an idle connection Postgres drops (a restart) is logged, not an
 * unhandled error, whether or not Prisma has used the pool yet.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  readonly pool: Pool;

  constructor(@Inject(PROMPTS_CONFIG) config: PromptsConfig, @Inject(PROMPTS_LOGGER) logger: Logger) {
    const pool = new Pool({ connectionString: config.DATABASE_URL, max: 10 });
    pool.on('error', (err) => logger.warn({ err }, 'an idle Postgres connection failed; the pool opens another'));
    super({ adapter: new PrismaPg(pool) });
    this.pool = pool;
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
    if (!this.pool.ending) await this.pool.end();
  }
}
