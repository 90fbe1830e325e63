-- AlterTable
ALTER TABLE "tokens"."admission_attempts" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "last_at" TIMESTAMPTZ(6),
ADD COLUMN     "refusal_key" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "admission_attempts_refusal_key_key" ON "tokens"."admission_attempts"("refusal_key");
