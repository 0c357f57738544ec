-- Issue 31, decision 0076: agents and changes an assistant proposed (in the chat or over MCP),
-- pending until their owner applies or discards them. Nothing else changes: proposals are new rows.
CREATE TABLE "agent_proposals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"source" text NOT NULL,
	"source_name" text NOT NULL,
	"conversation_id" uuid,
	"kind" text NOT NULL,
	"agent_id" uuid,
	"template_id" text NOT NULL,
	"name" text NOT NULL,
	"config" jsonb NOT NULL,
	"reason" text NOT NULL,
	"base_name" text,
	"base_config" jsonb,
	"backtest" jsonb,
	"backtest_error" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"result_agent_id" uuid,
	CONSTRAINT "agent_proposals_status_check" CHECK ("agent_proposals"."status" in ('pending', 'applied', 'discarded')),
	CONSTRAINT "agent_proposals_kind_check" CHECK ("agent_proposals"."kind" in ('create', 'change')),
	CONSTRAINT "agent_proposals_source_check" CHECK ("agent_proposals"."source" in ('chat', 'mcp'))
);
--> statement-breakpoint
ALTER TABLE "agent_proposals" ADD CONSTRAINT "agent_proposals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_proposals" ADD CONSTRAINT "agent_proposals_conversation_id_chat_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."chat_conversations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_proposals_user_status_idx" ON "agent_proposals" USING btree ("user_id","status","created_at");