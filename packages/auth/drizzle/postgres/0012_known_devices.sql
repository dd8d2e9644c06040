CREATE TABLE "auth_devices" (
	"user_id" text NOT NULL,
	"device_hash" text NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "auth_devices_user_id_device_hash_pk" PRIMARY KEY("user_id","device_hash")
);
--> statement-breakpoint
ALTER TABLE "auth_devices" ADD CONSTRAINT "auth_devices_user_id_auth_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "auth_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auth_devices_last_seen_idx" ON "auth_devices" USING btree ("last_seen_at");