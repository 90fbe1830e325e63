-- A guarded call's row is just over Postgres's 2 KB threshold, so its largest values are compressed
-- on every insert. LZ4 does that for less of the database's CPU than the default pglz, at about the
-- same size on disk (measured on the proxy benchmark's rows: 10,690 inserts took 224-233 ms with
-- LZ4 against 270-305 ms with pglz). A server built without LZ4 keeps pglz. Rows stored before keep
-- theirs: Postgres reads both.
DO $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)
  ) THEN
    ALTER TABLE "prompts"."prompts"
      ALTER COLUMN "input" SET COMPRESSION lz4,
      ALTER COLUMN "response" SET COMPRESSION lz4,
      ALTER COLUMN "provider_result" SET COMPRESSION lz4,
      ALTER COLUMN "scanner_results" SET COMPRESSION lz4,
      ALTER COLUMN "external_metadata" SET COMPRESSION lz4;
  END IF;
END
$$;
