-- Issue 35 item 1, decision 0102: less database work per run. A running run's lease leaves its
-- row for run_leases (one row per batch, renewed as one row); with it go agent_runs'
-- lease_expires_at and its partial index on status = 'running', the only index over a column the
-- run's writes change, so the move to 'running' and the record of its outcome become HOT updates.
CREATE TABLE "run_leases" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "run_leases_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_ids" bigint[] NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
-- By hand: the runs running at the upgrade keep their leases, one lease row per expiry (a run
-- without a lease row would never be found by the sweep if its worker died).
INSERT INTO "run_leases" ("run_ids", "expires_at")
	SELECT array_agg("id" ORDER BY "id"), coalesce("lease_expires_at", now())
	FROM "agent_runs" WHERE "status" = 'running'
	GROUP BY "lease_expires_at";
--> statement-breakpoint
DROP INDEX "agent_runs_running_lease_idx";--> statement-breakpoint
ALTER TABLE "agent_runs" DROP COLUMN "lease_expires_at";--> statement-breakpoint
-- By hand (drizzle cannot say it): room on each page for the row's next version, so the start
-- and the finish of a run (and the agent's next_run_at and last_run_at) stay on its page: a HOT
-- update where no index changes, and a WAL record without the unchanged part of the row.
-- New pages only; the pages written before fill as they did. agents at 50 too: a dispatch
-- updates every agent of a page at once, and each new version (~1.5 KB with its config) must fit.
-- The cost: both tables take about twice their pages.
ALTER TABLE "agent_runs" SET (fillfactor = 50);--> statement-breakpoint
ALTER TABLE "agents" SET (fillfactor = 50);
--> statement-breakpoint
-- Results written once: a market's result (~8 KB of JSON with its chart, the same for every run
-- of a batch on the same candles and plan) is stored once in agent_run_markets, and each run
-- keeps the ids of its markets in market_ids and the rest of its result (performance, alerts) in
-- `result`. Runs recorded before keep their whole result, and market_ids null.
CREATE TABLE "agent_run_markets" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "agent_run_markets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"market" jsonb NOT NULL,
	"first_run_id" bigint NOT NULL,
	"last_run_id" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "market_ids" bigint[];--> statement-breakpoint
-- By hand, as migration 0013 did for agent_runs.result: lz4 on PostgreSQL; PGlite is built
-- without it and keeps pglz.
DO $$
BEGIN
  ALTER TABLE "agent_run_markets" ALTER COLUMN "market" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END $$;
