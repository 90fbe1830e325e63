-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "prompts";

-- CreateTable
CREATE TABLE "prompts"."prompts" (
    "id" UUID NOT NULL,
    "tenant" TEXT NOT NULL,
    "project_id" TEXT,
    "user_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "provider_id" TEXT,
    "input" TEXT NOT NULL,
    "memory" TEXT[],
    "extra_inputs" JSONB NOT NULL,
    "external_metadata" JSONB NOT NULL,
    "from_template" BOOLEAN NOT NULL,
    "template_id" UUID,
    "parent_id" TEXT,
    "preserve" BOOLEAN NOT NULL,
    "type" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(6) NOT NULL,
    "outcome" TEXT NOT NULL,
    "response" TEXT,
    "files" JSONB NOT NULL,
    "provider_result" JSONB,
    "scanner_results" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "prompts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "prompts"."prompt_templates" (
    "id" UUID NOT NULL,
    "tenant" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "project_id" TEXT,
    "prompt_id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "input" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "prompt_templates_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "prompts_tenant_received_at_id_idx" ON "prompts"."prompts"("tenant", "received_at", "id");

-- CreateIndex
CREATE INDEX "prompts_tenant_project_id_idx" ON "prompts"."prompts"("tenant", "project_id");

-- CreateIndex
CREATE INDEX "prompts_tenant_outcome_idx" ON "prompts"."prompts"("tenant", "outcome");

-- CreateIndex
CREATE INDEX "prompts_template_id_idx" ON "prompts"."prompts"("template_id");
