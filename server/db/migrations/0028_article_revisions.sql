-- Issue 34 item 6, decision 0097: an article's text as each save left it, the newest 20 kept.
-- Every existing article starts with its current text as revision 1, saved by its author, at
-- its last update.
CREATE TABLE "article_revisions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"article_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"author_id" uuid,
	"fields" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "article_revisions" ADD CONSTRAINT "article_revisions_article_id_articles_id_fk" FOREIGN KEY ("article_id") REFERENCES "public"."articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "article_revisions" ADD CONSTRAINT "article_revisions_author_id_users_id_fk" FOREIGN KEY ("author_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "article_revisions_article_number_idx" ON "article_revisions" USING btree ("article_id","number");--> statement-breakpoint
INSERT INTO "article_revisions" ("article_id", "number", "author_id", "fields", "created_at")
SELECT "id", 1, "author_id", jsonb_build_object('title', "title", 'category', "category", 'excerpt', "excerpt", 'content', "content", 'readTime', "read_time"), "updated_at" FROM "articles";
