-- Issue 34 item 2, decision 0098: an article is a draft, scheduled or published (status, from
-- the old `published`), with the time a scheduled one goes public (publish_at) and the time it
-- went public (published_at: the creation date for the articles published before); and preview
-- links, kept as the SHA-256 of their token.
CREATE TABLE "article_preview_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"article_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "articles_published_created_idx";--> statement-breakpoint
ALTER TABLE "articles" ADD COLUMN "status" text DEFAULT 'draft' NOT NULL;--> statement-breakpoint
ALTER TABLE "articles" ADD COLUMN "publish_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "articles" ADD COLUMN "published_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "article_preview_links" ADD CONSTRAINT "article_preview_links_article_id_articles_id_fk" FOREIGN KEY ("article_id") REFERENCES "public"."articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "article_preview_links" ADD CONSTRAINT "article_preview_links_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "article_preview_links_token_idx" ON "article_preview_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "article_preview_links_article_idx" ON "article_preview_links" USING btree ("article_id");--> statement-breakpoint
CREATE INDEX "articles_status_published_idx" ON "articles" USING btree ("status","published_at");--> statement-breakpoint
CREATE INDEX "articles_publish_at_idx" ON "articles" USING btree ("publish_at") WHERE "articles"."status" = 'scheduled';--> statement-breakpoint
UPDATE "articles" SET "status" = 'published', "published_at" = "created_at" WHERE "published";--> statement-breakpoint
ALTER TABLE "articles" DROP COLUMN "published";--> statement-breakpoint
ALTER TABLE "articles" ADD CONSTRAINT "articles_status_check" CHECK ("articles"."status" in ('draft', 'scheduled', 'published'));--> statement-breakpoint
ALTER TABLE "articles" ADD CONSTRAINT "articles_scheduled_check" CHECK (("articles"."status" = 'scheduled') = ("articles"."publish_at" is not null));