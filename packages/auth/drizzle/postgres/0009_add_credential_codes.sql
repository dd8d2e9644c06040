CREATE TABLE "auth_add_credential_codes" (
	"user_id" text PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "auth_add_credential_codes" ADD CONSTRAINT "auth_add_credential_codes_user_id_auth_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "auth_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auth_add_credential_codes_expires_idx" ON "auth_add_credential_codes" USING btree ("expires_at");