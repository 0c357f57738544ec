-- Issue 34 item 4, decision 0100: several tags per article (position 0, the primary tag, is the
-- one the article's category names). Each existing article's category becomes its first tag:
-- the slug made as server/modules/articles/slug.ts makes it (accents folded, lower-case ASCII
-- words joined by hyphens, at most 80 characters; "tag-" and 8 hex digits of the name's MD5 when
-- nothing is left), so names that differ only in case become one tag, named as its oldest
-- article spells it.
CREATE TABLE "article_tags" (
	"article_id" uuid NOT NULL,
	"tag_id" uuid NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "article_tags_article_id_tag_id_pk" PRIMARY KEY("article_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "tags_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
ALTER TABLE "article_tags" ADD CONSTRAINT "article_tags_article_id_articles_id_fk" FOREIGN KEY ("article_id") REFERENCES "public"."articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "article_tags" ADD CONSTRAINT "article_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "article_tags_tag_idx" ON "article_tags" USING btree ("tag_id");
--> statement-breakpoint
INSERT INTO "tags" ("slug", "name")
SELECT DISTINCT ON (s.slug) s.slug, s.category FROM (
	SELECT coalesce(nullif(rtrim(left(trim(both '-' from regexp_replace(lower(regexp_replace(normalize("category", NFKD), '[\u0300-\u036f]', '', 'g')), '[^a-z0-9]+', '-', 'g')), 80), '-'), ''), 'tag-' || left(md5("category"), 8)) AS slug, "category", "created_at", "id" FROM "articles"
) s ORDER BY s.slug, s.created_at, s.id;--> statement-breakpoint
INSERT INTO "article_tags" ("article_id", "tag_id", "position")
SELECT a."id", t."id", 0 FROM "articles" a JOIN "tags" t ON t."slug" = coalesce(nullif(rtrim(left(trim(both '-' from regexp_replace(lower(regexp_replace(normalize(a."category", NFKD), '[\u0300-\u036f]', '', 'g')), '[^a-z0-9]+', '-', 'g')), 80), '-'), ''), 'tag-' || left(md5(a."category"), 8));
