-- Issue 35 item 2, decision 0101: finished runs older than RUN_RETENTION_DAYS are removed in
-- batches; each removed run sets its notifications' run_id to null (the notification keeps its
-- text), a lookup per run that this partial index makes cheap (without it, a scan of every
-- notification per removed run). Most notifications name a run; the few that do not are left out.
CREATE INDEX "notifications_run_id_idx" ON "notifications" USING btree ("run_id") WHERE "notifications"."run_id" is not null;