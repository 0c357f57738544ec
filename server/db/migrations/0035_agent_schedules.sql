-- Issue 35 item 1 (second step), decision 0103: what the runtime writes per run leaves the wide
-- agents row (its config, 1-2 KB) for agent_schedules, one narrow row per agent: the dispatch's
-- next_run_at and the record's last_run_at and performance. The dispatch claims due rows from it
-- and locks them, not the agents; the record no longer locks or updates agents; agent_runs'
-- foreign key points at the schedule row, so its key share lock at a run's insert falls on the
-- row the dispatch holds, not on the agent's page.
CREATE TABLE "agent_schedules" (
	"agent_id" uuid PRIMARY KEY NOT NULL,
	"next_run_at" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"performance" text
);
--> statement-breakpoint
ALTER TABLE "agent_schedules" ADD CONSTRAINT "agent_schedules_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- By hand: every agent's row, with today's values (a paused agent has no next slot).
INSERT INTO "agent_schedules" ("agent_id", "next_run_at", "last_run_at", "performance")
	SELECT "id", CASE WHEN "status" = 'running' THEN "next_run_at" END, "last_run_at", "performance" FROM "agents";--> statement-breakpoint
-- The runs' agent is now their agent's schedule row (every agent has one, just made): deleting
-- an agent still deletes its runs, through its schedule row. Checked against every run as it is
-- added (the table is locked meanwhile: an upgrade's pause).
ALTER TABLE "agent_runs" DROP CONSTRAINT "agent_runs_agent_id_agents_id_fk";--> statement-breakpoint
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_agent_id_agent_schedules_agent_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agent_schedules"("agent_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_schedules_next_run_idx" ON "agent_schedules" USING btree ("next_run_at") WHERE "agent_schedules"."next_run_at" is not null;--> statement-breakpoint
DROP INDEX "agents_status_next_run_idx";--> statement-breakpoint
ALTER TABLE "agents" DROP COLUMN "last_run_at";--> statement-breakpoint
ALTER TABLE "agents" DROP COLUMN "performance";--> statement-breakpoint
ALTER TABLE "agents" DROP COLUMN "next_run_at";--> statement-breakpoint
-- By hand (drizzle cannot say it): room on each page for a row's next version, so a record's
-- update (last_run_at, performance: no index covers them) is a HOT update on the same page. The
-- agents row is no longer written per run: back to the default fillfactor (decision 0102 set 50).
ALTER TABLE "agent_schedules" SET (fillfactor = 50);--> statement-breakpoint
ALTER TABLE "agents" RESET (fillfactor);--> statement-breakpoint
-- By hand (drizzle cannot say it): every agent has its schedule row from its insert on, in the
-- same transaction, whatever inserts it (the service, a test's or a benchmark's SQL); empty: a
-- new agent is paused, and whoever gives it a slot updates the row.
CREATE FUNCTION "app_agent_schedule_created"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "agent_schedules" ("agent_id") VALUES (NEW.id);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "agents_schedule_created" AFTER INSERT ON "agents" FOR EACH ROW EXECUTE FUNCTION "app_agent_schedule_created"();--> statement-breakpoint
-- By hand, as migration 0015 did for agent_runs: a record changes the agents list's "last run"
-- and performance, so a change of a schedule row announces its agent's owner to the caches of
-- PGlite (decision 0059). The row has agent_id as a run has, so the runs' function serves.
CREATE TRIGGER "agent_schedules_owner_changed" AFTER INSERT OR UPDATE OR DELETE ON "agent_schedules" FOR EACH ROW
  WHEN (current_setting('app.owner_change_notices', true) = 'on') EXECUTE FUNCTION "app_agent_runs_changed"();--> statement-breakpoint
CREATE TRIGGER "agent_schedules_truncated" AFTER TRUNCATE ON "agent_schedules" FOR EACH STATEMENT
  WHEN (current_setting('app.owner_change_notices', true) = 'on') EXECUTE FUNCTION "app_owners_truncated"('agents');
