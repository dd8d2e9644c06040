ALTER TABLE `auth_users` ADD `disabled_at` integer;--> statement-breakpoint
CREATE INDEX `auth_users_created_idx` ON `auth_users` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `auth_users_name_idx` ON `auth_users` (lower("name"));