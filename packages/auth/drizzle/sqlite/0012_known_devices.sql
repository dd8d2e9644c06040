CREATE TABLE `auth_devices` (
	`user_id` text NOT NULL,
	`device_hash` text NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `device_hash`),
	FOREIGN KEY (`user_id`) REFERENCES `auth_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `auth_devices_last_seen_idx` ON `auth_devices` (`last_seen_at`);