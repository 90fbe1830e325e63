-- A prompt's provider result and scanner results as `json` (text, checked) rather than `jsonb`: both
-- are only ever stored and read whole. Rewrites the table under an exclusive lock: while it runs the
-- prompt store waits, and the proxy's records wait in JetStream (nothing is lost).
ALTER TABLE "prompts"."prompts" ALTER COLUMN "provider_result" SET DATA TYPE JSON USING "provider_result"::json,
ALTER COLUMN "scanner_results" SET DATA TYPE JSON USING "scanner_results"::json;
