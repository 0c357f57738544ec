CREATE TABLE "chat_reservations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"tokens" integer DEFAULT 0 NOT NULL,
	"images" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chat_usage" ADD COLUMN "images" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_reservations" ADD CONSTRAINT "chat_reservations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_reservations_user_expires_idx" ON "chat_reservations" USING btree ("user_id","expires_at");