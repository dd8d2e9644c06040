CREATE INDEX `auth_sessions_refreshed_idx` ON `auth_sessions` (`refreshed_at`);--> statement-breakpoint
CREATE INDEX `auth_sessions_created_idx` ON `auth_sessions` (`created_at`);