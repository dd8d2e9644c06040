ALTER TABLE "auth_users" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "auth_users_created_idx" ON "auth_users" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "auth_users_email_prefix_idx" ON "auth_users" USING btree (("email" collate "C"));--> statement-breakpoint
CREATE INDEX "auth_users_name_prefix_idx" ON "auth_users" USING btree ((lower("name") collate "C"));