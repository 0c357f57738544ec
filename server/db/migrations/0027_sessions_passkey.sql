-- Decision 0092's amendment: a session remembers the passkey that signed it in, so removing the
-- passkey (a lost device) ends the sessions it started. Sessions from before have none.
ALTER TABLE "sessions" ADD COLUMN "passkey_id" uuid;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_passkey_id_passkeys_id_fk" FOREIGN KEY ("passkey_id") REFERENCES "public"."passkeys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_passkey_idx" ON "sessions" USING btree ("passkey_id") WHERE "sessions"."passkey_id" is not null;