CREATE TABLE `auth_email_tokens` (
	`hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`new_email` text,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `auth_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `auth_email_tokens_user_idx` ON `auth_email_tokens` (`user_id`);--> statement-breakpoint
ALTER TABLE `auth_sessions` ADD `user_agent` text;--> statement-breakpoint
ALTER TABLE `auth_sessions` ADD `ip` text;--> statement-breakpoint
ALTER TABLE `auth_users` ADD `email_verified` integer DEFAULT false NOT NULL;