ALTER TABLE "channel_deliveries" ADD COLUMN "event" text DEFAULT 'notification' NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_usage" ADD COLUMN "purpose" text DEFAULT 'chat' NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "brief_status" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "brief_provider" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "brief_model" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "brief_text" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "brief_error" text;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "brief_follows" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "brief_email_status" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "deliveries_released_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "channel_deliveries" ADD CONSTRAINT "channel_deliveries_event_check" CHECK ("channel_deliveries"."event" in ('notification', 'notification.brief'));--> statement-breakpoint
ALTER TABLE "chat_usage" ADD CONSTRAINT "chat_usage_purpose_check" CHECK ("chat_usage"."purpose" in ('chat', 'alert-brief'));--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_brief_status_check" CHECK ("notifications"."brief_status" in ('pending', 'ready', 'failed'));--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_brief_email_status_check" CHECK ("notifications"."brief_email_status" in ('none', 'pending', 'sent', 'logged', 'failed'));