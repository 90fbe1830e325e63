-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "projects";

-- CreateEnum
CREATE TYPE "projects"."ScannerKind" AS ENUM ('scanner', 'package');

-- CreateEnum
CREATE TYPE "projects"."DeploymentStatus" AS ENUM ('draft', 'live');

-- CreateTable
CREATE TABLE "projects"."scanners" (
    "id" UUID NOT NULL,
    "tenant" TEXT,
    "built_in" BOOLEAN NOT NULL DEFAULT false,
    "kind" "projects"."ScannerKind" NOT NULL DEFAULT 'scanner',
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "latest_version_id" UUID,
    "version_count" INTEGER NOT NULL DEFAULT 0,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "scanners_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects"."scanner_versions" (
    "id" UUID NOT NULL,
    "scanner_id" UUID NOT NULL,
    "number" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "config" JSONB NOT NULL,
    "direction" TEXT NOT NULL,
    "published" BOOLEAN NOT NULL DEFAULT false,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "scanner_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects"."dataset_runs" (
    "id" UUID NOT NULL,
    "tenant" TEXT NOT NULL,
    "scanner_id" UUID NOT NULL,
    "version_id" UUID NOT NULL,
    "rows" INTEGER NOT NULL,
    "true_positive" INTEGER NOT NULL,
    "false_positive" INTEGER NOT NULL,
    "true_negative" INTEGER NOT NULL,
    "false_negative" INTEGER NOT NULL,
    "accuracy" DOUBLE PRECISION NOT NULL,
    "precision" DOUBLE PRECISION NOT NULL,
    "recall" DOUBLE PRECISION NOT NULL,
    "f1_score" DOUBLE PRECISION NOT NULL,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "dataset_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects"."dataset_upload_parts" (
    "upload_id" UUID NOT NULL,
    "part" INTEGER NOT NULL,
    "tenant" TEXT NOT NULL,
    "data" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dataset_upload_parts_pkey" PRIMARY KEY ("upload_id","part")
);

-- CreateTable
CREATE TABLE "projects"."projects" (
    "id" UUID NOT NULL,
    "tenant" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "friendly_id" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'app',
    "bot_type" TEXT NOT NULL DEFAULT '',
    "chatbot_id" TEXT NOT NULL DEFAULT '',
    "admin_role_id" TEXT NOT NULL DEFAULT '',
    "member_role_id" TEXT NOT NULL DEFAULT '',
    "deployment_status" "projects"."DeploymentStatus" NOT NULL DEFAULT 'draft',
    "revision" INTEGER NOT NULL,
    "config_id" UUID NOT NULL,
    "config" JSONB NOT NULL,
    "config_valid_from" TIMESTAMPTZ(3) NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects"."project_config_revisions" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "tenant" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "config" JSONB NOT NULL,
    "valid_from" TIMESTAMPTZ(3) NOT NULL,
    "created_by" TEXT NOT NULL,

    CONSTRAINT "project_config_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "scanners_tenant_kind_created_at_id_idx" ON "projects"."scanners"("tenant", "kind", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "scanners_tenant_name_key" ON "projects"."scanners"("tenant", "name");

-- CreateIndex
CREATE INDEX "scanner_versions_scanner_id_created_at_id_idx" ON "projects"."scanner_versions"("scanner_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "scanner_versions_scanner_id_number_key" ON "projects"."scanner_versions"("scanner_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "scanner_versions_scanner_id_name_key" ON "projects"."scanner_versions"("scanner_id", "name");

-- CreateIndex
CREATE INDEX "dataset_runs_tenant_version_id_created_at_id_idx" ON "projects"."dataset_runs"("tenant", "version_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "dataset_upload_parts_created_at_idx" ON "projects"."dataset_upload_parts"("created_at");

-- CreateIndex
CREATE INDEX "projects_tenant_created_at_id_idx" ON "projects"."projects"("tenant", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "projects_tenant_name_key" ON "projects"."projects"("tenant", "name");

-- CreateIndex
CREATE UNIQUE INDEX "projects_tenant_friendly_id_key" ON "projects"."projects"("tenant", "friendly_id");

-- CreateIndex
CREATE INDEX "project_config_revisions_project_id_valid_from_idx" ON "projects"."project_config_revisions"("project_id", "valid_from");

-- CreateIndex
CREATE UNIQUE INDEX "project_config_revisions_project_id_revision_key" ON "projects"."project_config_revisions"("project_id", "revision");

-- AddForeignKey
ALTER TABLE "projects"."scanner_versions" ADD CONSTRAINT "scanner_versions_scanner_id_fkey" FOREIGN KEY ("scanner_id") REFERENCES "projects"."scanners"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects"."dataset_runs" ADD CONSTRAINT "dataset_runs_version_id_fkey" FOREIGN KEY ("version_id") REFERENCES "projects"."scanner_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects"."project_config_revisions" ADD CONSTRAINT "project_config_revisions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"."projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
