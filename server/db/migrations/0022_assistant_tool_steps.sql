-- Issue 31, decisions 0076 and 0079: an answer keeps the tool steps it took (shown where they happened,
-- rejoined, exported), and a chat keeps its "Use my agents" setting (null: the default, on for admins).
ALTER TABLE "chat_conversations" ADD COLUMN "use_agents" boolean;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "tool_steps" jsonb;