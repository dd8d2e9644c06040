/**
 * Databases as the previous release left them, for upgrade tests: a copy of a migrations folder
 * whose journal stops where that release's did, and the rows a user of it would have.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Migrations of release 0.1.0: `0000_init` only. */
export const RELEASE_0_1_0 = 1

/** A temporary copy of `folder` whose journal lists only its first `entries` migrations. */
export const migrationsUpTo = (folder: string, entries: number): string => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-migrations-'))
  cpSync(folder, dir, { recursive: true })
  const path = join(dir, 'meta', '_journal.json')
  const journal = JSON.parse(readFileSync(path, 'utf8')) as { entries: unknown[] }
  writeFileSync(path, JSON.stringify({ ...journal, entries: journal.entries.slice(0, entries) }))
  return dir
}

/** Migrations in a folder's journal: what a fully migrated database has recorded. */
export const migrationCount = (folder: string): number =>
  (JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length

/** One user of the previous release with a session, its refresh value and a pending reset token (SQL of 0000_init). */
export const previousReleaseRows = (ms: (date: Date) => string | number) => {
  const t = new Date('2026-11-01T10:00:00.000Z')
  return [
    `insert into auth_users (id, name, email, password_hash, role, created_at) values ('u1', 'Ada', 'ada@example.com', 'old-hash', 'admin', ${ms(t)})`,
    `insert into auth_sessions (id, user_id, created_at, refreshed_at) values ('s1', 'u1', ${ms(t)}, ${ms(t)})`,
    `insert into auth_refresh_tokens (hash, session_id, created_at) values ('r1', 's1', ${ms(t)})`,
    `insert into auth_reset_tokens (hash, user_id, expires_at) values ('t1', 'u1', ${ms(new Date('2099-01-01T00:00:00.000Z'))})`,
  ]
}
