-- Issue 35 item 1 (third step), decision 0104: a run's record writes its run's row and nothing
-- else. The agent's last run and performance were copied to agent_schedules at every record (a
-- second lock and a second row written per run); they are read from the agent's runs now (its
-- latest finished run's end time, its latest success's performance), which the agents list reads
-- for the agent's health already.
ALTER TABLE "agent_runs" ADD COLUMN "performance" text;--> statement-breakpoint
-- By hand: each agent's performance as it was, on its latest successful run (the run it came
-- from), so an agent shows the same performance after the upgrade as before it.
UPDATE "agent_runs" r SET "performance" = s."performance"
	FROM "agent_schedules" s
	WHERE s."performance" IS NOT NULL
		AND r."id" = (SELECT l."id" FROM "agent_runs" l WHERE l."agent_id" = s."agent_id" AND l."status" = 'success' ORDER BY l."id" DESC LIMIT 1);--> statement-breakpoint
ALTER TABLE "agent_schedules" DROP COLUMN "last_run_at";--> statement-breakpoint
ALTER TABLE "agent_schedules" DROP COLUMN "performance";
