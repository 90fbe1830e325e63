import type { INestMicroservice } from '@nestjs/common';
import { startProjectsService } from './projects';
import { startPromptsService } from './prompts';
import { startProvidersService } from './providers';
import { startProxyService } from './proxy';
import { startTokensService } from './stack';

/** Every service behind the gateway, as `pnpm start` runs them. */
export async function startAllServices(): Promise<INestMicroservice[]> {
  return Promise.all([startTokensService(), startProvidersService(), startPromptsService(), startProxyService(), startProjectsService()]);
}
