-- Issue 19 item 4, decision 0052: the runtime at 10,000 runs a minute.
-- A successful run's prices, small and read by the agent's next run without its large result.
ALTER TABLE "agent_runs" ADD COLUMN "prices" jsonb;--> statement-breakpoint
-- A run's result (~8 KB of JSON with its chart) is compressed with lz4 instead of pglz: pglz was
-- most of the database's work in recording a batch of runs (about three times lz4's CPU, for a
-- somewhat smaller value). Values written from now on use it; older ones stay readable as they
-- are. PGlite is built without lz4: there the column keeps pglz and this changes nothing.
DO $$
BEGIN
  ALTER TABLE "agent_runs" ALTER COLUMN "result" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;
