import type { INestMicroservice } from '@nestjs/common';
import { startProvidersService } from './providers';
import { startTokensService } from './stack';

/** Every service behind the gateway, as `pnpm start` runs them. */
export async function startAllServices(): Promise<INestMicroservice[]> {
  return Promise.all([startTokensService(), startProvidersService()]);
}
