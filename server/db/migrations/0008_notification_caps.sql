ALTER TABLE "notifications" DROP CONSTRAINT "notifications_kind_check";--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "held_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "notifications_agent_created_idx" ON "notifications" USING btree ("agent_id","created_at");--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind_check" CHECK ("notifications"."kind" in ('alerts', 'failing', 'recovered', 'alert-storm'));