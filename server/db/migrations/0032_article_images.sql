-- Issue 34 item 3, decision 0099: article images (the SHA-256 of what was uploaded, its size)
-- and their variants (WebP at a few widths for the pages, a JPEG for social cards: the bytes
-- served), and an article's cover with its alt text (the cover goes to null when its image is
-- deleted).
CREATE TABLE "article_image_variants" (
	"image_id" uuid NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"content_type" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	CONSTRAINT "article_image_variants_image_id_width_content_type_pk" PRIMARY KEY("image_id","width","content_type")
);
--> statement-breakpoint
CREATE TABLE "article_images" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sha256" text NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"source_type" text NOT NULL,
	"uploaded_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "articles" ADD COLUMN "cover_image_id" uuid;--> statement-breakpoint
ALTER TABLE "articles" ADD COLUMN "cover_alt" text;--> statement-breakpoint
ALTER TABLE "article_image_variants" ADD CONSTRAINT "article_image_variants_image_id_article_images_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."article_images"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "article_images" ADD CONSTRAINT "article_images_uploaded_by_users_id_fk" FOREIGN KEY ("uploaded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "article_images_sha256_idx" ON "article_images" USING btree ("sha256");--> statement-breakpoint
ALTER TABLE "articles" ADD CONSTRAINT "articles_cover_image_id_article_images_id_fk" FOREIGN KEY ("cover_image_id") REFERENCES "public"."article_images"("id") ON DELETE set null ON UPDATE no action;