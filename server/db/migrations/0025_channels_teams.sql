-- Issue 33 item 3, decision 0090: Microsoft Teams channels (a Workflows webhook posting an Adaptive Card)
ALTER TABLE "channels" DROP CONSTRAINT "channels_kind_check";--> statement-breakpoint
ALTER TABLE "channels" ADD CONSTRAINT "channels_kind_check" CHECK ("channels"."kind" in ('webhook', 'slack', 'discord', 'telegram', 'teams'));