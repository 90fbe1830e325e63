-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "providers";

-- CreateTable
CREATE TABLE "providers"."system_providers" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "tag" TEXT NOT NULL,
    "capabilities" TEXT[],
    "template" JSONB NOT NULL,
    "auth_template" JSONB,
    "inputs" JSONB NOT NULL,
    "secret_names" TEXT[],
    "max_requests_per_second" DOUBLE PRECISION,
    "request_concurrency_limit" JSONB,
    "has_logo" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "system_providers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "providers"."providers" (
    "id" UUID NOT NULL,
    "tenant" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "project_id" UUID,
    "system_provider_id" UUID,
    "type" TEXT NOT NULL,
    "tag" TEXT NOT NULL DEFAULT '',
    "capabilities" TEXT[],
    "template" JSONB NOT NULL,
    "auth_template" JSONB,
    "inputs" JSONB NOT NULL,
    "secrets" TEXT NOT NULL,
    "availability" JSONB NOT NULL,
    "red_team" BOOLEAN NOT NULL DEFAULT false,
    "siem" BOOLEAN NOT NULL DEFAULT false,
    "has_logo" BOOLEAN NOT NULL DEFAULT false,
    "max_requests_per_second" DOUBLE PRECISION,
    "request_concurrency_limit" JSONB,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "providers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "system_providers_name_key" ON "providers"."system_providers"("name");

-- CreateIndex
CREATE INDEX "providers_tenant_created_at_id_idx" ON "providers"."providers"("tenant", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "providers_tenant_name_key" ON "providers"."providers"("tenant", "name");
