CREATE TABLE `auth_add_credential_codes` (
	`user_id` text PRIMARY KEY NOT NULL,
	`hash` text NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `auth_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `auth_add_credential_codes_expires_idx` ON `auth_add_credential_codes` (`expires_at`);