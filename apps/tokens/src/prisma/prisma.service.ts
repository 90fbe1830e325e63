import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool, type QueryResultRow } from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import { TOKENS_CONFIG, type TokensConfig } from '../config';

/**
 * The tokens service's Prisma client, on the `pg` driver adapter over a pool this service owns, so
 * the admission path can also run its statements as named prepared statements on the same pool.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleDestroy {
  private readonly pool: Pool;

  constructor(@Inject(TOKENS_CONFIG) config: TokensConfig) {
    const pool = new Pool({ connectionString: config.DATABASE_URL, max: 10 });
    // An idle connection that breaks (Postgres restarted) is dropped by the pool and the next query
    // opens another; without a listener its error would end the process.
    pool.on('error', () => undefined);
    super({ adapter: new PrismaPg(pool) });
    this.pool = pool;
  }

  /**
   * Runs `text` as the prepared statement `name`: each connection parses and plans it once, not
   * per call (for the admission statement that is most of Postgres's work per admission). One name
   * must always stand for the same text.
   */
  async prepared<T extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]> {
    try {
      return (await this.pool.query<T>({ name, text, values })).rows;
    } catch (err) {
      // A migration changed what the statement reads ("cached plan must not change result type"):
      // this call runs unprepared; the connection re-prepares once it is replaced.
      if ((err as { code?: string }).code !== '0A000') throw err;
      return (await this.pool.query<T>({ text, values })).rows;
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.$disconnect();
    await this.pool.end();
  }
}
