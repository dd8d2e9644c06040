ALTER TABLE "auth_sessions" ADD COLUMN "refresh_hash" text;--> statement-breakpoint
ALTER TABLE "auth_sessions" ADD COLUMN "previous_refresh_hash" text;--> statement-breakpoint
ALTER TABLE "auth_sessions" ADD COLUMN "rotated_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "auth_sessions_refresh_idx" ON "auth_sessions" USING btree ("refresh_hash");