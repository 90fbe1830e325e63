import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TOKENS_STREAM, TokenEvents } from '@bastion/contracts';
import { connectNats, ensureStream, EventPublisher, NATS_CONNECTION } from '@bastion/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import { TOKENS_CONFIG, type TokensConfig } from './config';
import { HealthController } from './health.controller';
import { PrismaService } from './prisma/prisma.service';
import { TokenController } from './tokens/token.controller';
import { TokenRepository } from './tokens/token.repository';
import { TokenService } from './tokens/token.service';

/** The stream of the tokens service's domain events (see DESIGN.md: events that must not be lost). */
export const TOKENS_STREAM_SPEC = { name: TOKENS_STREAM, subjects: Object.values(TokenEvents) };

@Module({})
export class TokensModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  static forRoot(config: TokensConfig): DynamicModule {
    return {
      module: TokensModule,
      controllers: [TokenController, HealthController],
      providers: [
        { provide: TOKENS_CONFIG, useValue: config },
        {
          provide: NATS_CONNECTION,
          useFactory: async () => {
            const nc = await connectNats(config.NATS_URL, 'tokens');
            await ensureStream(nc, TOKENS_STREAM_SPEC);
            return nc;
          },
        },
        { provide: EventPublisher, inject: [NATS_CONNECTION], useFactory: (nc: NatsConnection) => new EventPublisher(nc) },
        PrismaService,
        TokenRepository,
        TokenService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nc.drain();
  }
}
