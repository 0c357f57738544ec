ALTER TABLE "notifications" ALTER COLUMN "market" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ALTER COLUMN "threshold_type" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "kind" text DEFAULT 'alerts' NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "alerts" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_kind_check" CHECK ("notifications"."kind" in ('alerts', 'failing', 'recovered'));