-- Issue 30, decision 0075: "Describe it" drafts a condition with a chat assistant; its calls count
-- against the owner's daily budget and show at Usage as "Condition drafts" (purpose 'condition-draft').
ALTER TABLE "chat_usage" DROP CONSTRAINT "chat_usage_purpose_check";--> statement-breakpoint
ALTER TABLE "chat_usage" ADD CONSTRAINT "chat_usage_purpose_check" CHECK ("chat_usage"."purpose" in ('chat', 'alert-brief', 'condition-draft'));