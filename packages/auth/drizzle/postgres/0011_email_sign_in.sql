CREATE TABLE "auth_email_sign_ins" (
	"flow_hash" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"code_hash" text NOT NULL,
	"email" text NOT NULL,
	"user_id" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "auth_email_sign_ins" ADD CONSTRAINT "auth_email_sign_ins_user_id_auth_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "auth_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "auth_email_sign_ins_token_idx" ON "auth_email_sign_ins" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "auth_email_sign_ins_email_idx" ON "auth_email_sign_ins" USING btree ("email");--> statement-breakpoint
CREATE INDEX "auth_email_sign_ins_user_idx" ON "auth_email_sign_ins" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "auth_email_sign_ins_expires_idx" ON "auth_email_sign_ins" USING btree ("expires_at");