ALTER TABLE `auth_sessions` ADD `refresh_hash` text;--> statement-breakpoint
ALTER TABLE `auth_sessions` ADD `previous_refresh_hash` text;--> statement-breakpoint
ALTER TABLE `auth_sessions` ADD `rotated_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `auth_sessions_refresh_idx` ON `auth_sessions` (`refresh_hash`);