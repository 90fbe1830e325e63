-- CreateTable
CREATE TABLE "projects"."api_keys" (
    "id" UUID NOT NULL,
    "tenant" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "project_id" UUID,
    "role" TEXT NOT NULL,
    "machine" BOOLEAN NOT NULL DEFAULT false,
    "secret_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "api_keys_tenant_created_at_id_idx" ON "projects"."api_keys"("tenant", "created_at", "id");

-- CreateIndex
CREATE INDEX "api_keys_project_id_idx" ON "projects"."api_keys"("project_id");
