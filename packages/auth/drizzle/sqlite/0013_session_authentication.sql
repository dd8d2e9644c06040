ALTER TABLE `auth_sessions` ADD `authenticated_at` integer;--> statement-breakpoint
ALTER TABLE `auth_sessions` ADD `amr` text;