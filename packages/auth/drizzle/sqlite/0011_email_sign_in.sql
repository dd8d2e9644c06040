CREATE TABLE `auth_email_sign_ins` (
	`flow_hash` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`code_hash` text NOT NULL,
	`email` text NOT NULL,
	`user_id` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `auth_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `auth_email_sign_ins_token_idx` ON `auth_email_sign_ins` (`token_hash`);--> statement-breakpoint
CREATE INDEX `auth_email_sign_ins_email_idx` ON `auth_email_sign_ins` (`email`);--> statement-breakpoint
CREATE INDEX `auth_email_sign_ins_user_idx` ON `auth_email_sign_ins` (`user_id`);--> statement-breakpoint
CREATE INDEX `auth_email_sign_ins_expires_idx` ON `auth_email_sign_ins` (`expires_at`);