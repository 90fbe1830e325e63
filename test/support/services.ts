import type { INestMicroservice } from '@nestjs/common';
import { startProjectsService } from './projects';
import { startPromptsService } from './prompts';
import { startProvidersService } from './providers';
import { startProxyService } from './proxy';
import { startTokensService } from './stack';

const STARTERS = {
  tokens: () => startTokensService(),
  providers: () => startProvidersService(),
  prompts: () => startPromptsService(),
  'message-proxy': () => startProxyService(),
  projects: () => startProjectsService(),
};

/** Every service behind the gateway, as `pnpm start` runs them (but those named in `exclude`). */
export async function startAllServices(
  options: { exclude?: (keyof typeof STARTERS)[] } = {},
): Promise<INestMicroservice[]> {
  const wanted = Object.entries(STARTERS).filter(([name]) => !options.exclude?.includes(name as keyof typeof STARTERS));
  return Promise.all(wanted.map(([, start]) => start()));
}
