-- CreateEnum
CREATE TYPE "tokens"."AdmissionOutcome" AS ENUM ('ADMITTED', 'REFUSED');

-- CreateEnum
CREATE TYPE "tokens"."SigningKeyStatus" AS ENUM ('ACTIVE', 'RETIRED');

-- AlterTable
ALTER TABLE "tokens"."tokens" ADD COLUMN     "expires_at" TIMESTAMPTZ(6),
ADD COLUMN     "max_registrations" INTEGER,
ADD COLUMN     "used_registrations" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "tokens"."registrations" (
    "uid" UUID NOT NULL,
    "tenant" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "token_uid" UUID NOT NULL,
    "token_name" TEXT NOT NULL,
    "site_name" TEXT NOT NULL,
    "passport" JSONB NOT NULL,
    "source_address" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_at" TIMESTAMPTZ(6),

    CONSTRAINT "registrations_pkey" PRIMARY KEY ("uid")
);

-- CreateTable
CREATE TABLE "tokens"."admission_attempts" (
    "id" UUID NOT NULL,
    "at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "outcome" "tokens"."AdmissionOutcome" NOT NULL,
    "reason" TEXT NOT NULL,
    "source_address" TEXT NOT NULL,
    "tenant" TEXT,
    "token_uid" UUID,
    "node_name" TEXT NOT NULL,
    "site_name" TEXT NOT NULL,

    CONSTRAINT "admission_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tokens"."signing_keys" (
    "kid" TEXT NOT NULL,
    "algorithm" TEXT NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "private_key" TEXT NOT NULL,
    "status" "tokens"."SigningKeyStatus" NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(6),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE INDEX "tokens_expires_at_idx" ON "tokens"."tokens"("expires_at");

-- CreateIndex
CREATE INDEX "registrations_tenant_token_uid_idx" ON "tokens"."registrations"("tenant", "token_uid");

-- CreateIndex
CREATE UNIQUE INDEX "registrations_tenant_namespace_name_key" ON "tokens"."registrations"("tenant", "namespace", "name");

-- CreateIndex
CREATE INDEX "admission_attempts_at_idx" ON "tokens"."admission_attempts"("at");

-- CreateIndex
CREATE INDEX "admission_attempts_token_uid_idx" ON "tokens"."admission_attempts"("token_uid");
