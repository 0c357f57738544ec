-- Decision 0096: an article's own search and social fields (meta title, meta description,
-- canonical URL). Null keeps the fallbacks (the title, the excerpt, the article's own URL), so
-- articles from before need nothing.
ALTER TABLE "articles" ADD COLUMN "meta_title" text;--> statement-breakpoint
ALTER TABLE "articles" ADD COLUMN "meta_description" text;--> statement-breakpoint
ALTER TABLE "articles" ADD COLUMN "canonical_url" text;