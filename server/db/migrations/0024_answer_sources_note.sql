-- Issue 32, decision 0088: an answer keeps how its sources were found (the note the stream showed: full text only,
-- files without text, a failed web search; and the retrieval's mode), so a reload, a rejoin and the exports say it too.
ALTER TABLE "chat_messages" ADD COLUMN "sources_note" text;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "retrieval" jsonb;