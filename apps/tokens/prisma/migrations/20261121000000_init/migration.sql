-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "tokens";

-- CreateEnum
CREATE TYPE "tokens"."TokenState" AS ENUM ('UNKNOWN', 'VALID', 'EXPIRED');

-- CreateEnum
CREATE TYPE "tokens"."TokenType" AS ENUM ('NORMAL', 'JWT');

-- CreateTable
CREATE TABLE "tokens"."tokens" (
    "uid" UUID NOT NULL,
    "tenant" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "annotations" JSONB NOT NULL DEFAULT '{}',
    "description" TEXT NOT NULL DEFAULT '',
    "disable" BOOLEAN NOT NULL DEFAULT false,
    "state" "tokens"."TokenState" NOT NULL DEFAULT 'VALID',
    "type" "tokens"."TokenType" NOT NULL DEFAULT 'NORMAL',
    "content" TEXT NOT NULL DEFAULT '',
    "site_name" TEXT NOT NULL DEFAULT '',
    "creator_class" TEXT NOT NULL,
    "creator_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_at" TIMESTAMPTZ(6),
    "revision" INTEGER NOT NULL DEFAULT 1,

    CONSTRAINT "tokens_pkey" PRIMARY KEY ("uid")
);

-- CreateIndex
CREATE INDEX "tokens_tenant_namespace_idx" ON "tokens"."tokens"("tenant", "namespace");

-- CreateIndex
CREATE UNIQUE INDEX "tokens_tenant_namespace_name_key" ON "tokens"."tokens"("tenant", "namespace", "name");
