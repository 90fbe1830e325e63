import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@bastion/platform';
import { assertProductionReady, TOKENS_CONFIG, TokensConfig } from '../config';
import { SigningKeyRepository } from '../keys/signing-key.repository';
import { SigningKeyService } from '../keys/signing-key.service';
import { PrismaService } from '../prisma/prisma.service';

/**
 * `pnpm keys:rotate`: makes a new Ed25519 signing key active and retires the previous one, which
 * stays published in the JWKS and keeps verifying the JWTs it signed. Running replicas pick the new
 * key up within a minute (and at once when they meet its kid).
 */
async function main(): Promise<void> {
  const config = loadConfig(TokensConfig);
  assertProductionReady(config);
  @Module({
    providers: [{ provide: TOKENS_CONFIG, useValue: config }, PrismaService, SigningKeyRepository, SigningKeyService],
  })
  class RotateModule {}
  const app = await NestFactory.createApplicationContext(RotateModule, { logger: false });
  try {
    const kid = await app.get(SigningKeyService).rotate();
    console.log(`active signing key is now ${kid}`);
  } finally {
    await app.close();
  }
}

main().catch((err) => {
  console.error(`keys:rotate failed: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
});
