ALTER TABLE `auth_users` ADD `disabled_at` integer;--> statement-breakpoint
CREATE INDEX `auth_users_created_idx` ON `auth_users` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `auth_users_email_prefix_idx` ON `auth_users` ("email");--> statement-breakpoint
CREATE INDEX `auth_users_name_prefix_idx` ON `auth_users` (lower("name"));