-- Issue 29, decision 0061: how each kept answer ended (finish), the usage an answer still being
-- written has not recorded yet (so a sweep can settle it when its process died), usage marked as
-- estimated, and answers stopped by the person recorded as 'stopped' rather than 'aborted'
-- (the usage report counted them as failed).
ALTER TABLE "chat_usage" DROP CONSTRAINT "chat_usage_outcome_check";--> statement-breakpoint
UPDATE "chat_usage" SET "outcome" = 'stopped' WHERE "outcome" = 'aborted';--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "finish" text;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "unsettled_input_tokens" integer;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "reservation_id" uuid;--> statement-breakpoint
ALTER TABLE "chat_usage" ADD COLUMN "estimated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_finish_check" CHECK ("chat_messages"."finish" is null or "chat_messages"."finish" in ('complete', 'length', 'content-filter', 'other', 'connection-lost', 'stopped', 'failed', 'interrupted'));--> statement-breakpoint
ALTER TABLE "chat_usage" ADD CONSTRAINT "chat_usage_outcome_check" CHECK ("chat_usage"."outcome" in ('ok', 'error', 'stopped', 'interrupted', 'rejected'));