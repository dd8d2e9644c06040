-- Custom SQL migration file, put your code below! --
-- Each session keeps its current refresh value in its own row; values rotated away before this
-- upgrade are not carried over (presented again, they are unknown, not reuse).
UPDATE "auth_sessions" s SET "refresh_hash" = t."hash"
  FROM "auth_refresh_tokens" t
  WHERE t."session_id" = s."id" AND t."rotated_at" IS NULL;
