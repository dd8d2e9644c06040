import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { describe, expect, it } from 'vitest'
import { migrationCount, migrationsUpTo, previousReleaseRows, RELEASE_0_1_0 } from '../../test/previous-release.js'
import { accountEvents } from '../account-events.js'
import { rotateRefresh } from '../refresh-rotation.js'
import { storeConformance } from '../testing/store-conformance.js'
import { migrateSqlite, openSqlite, sqliteMigrationsFolder, sqliteStore } from './index.js'

storeConformance('sqlite (file)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-store-'))
  const db = openSqlite(join(dir, 'auth.db'))
  migrateSqlite(db)
  return {
    store: sqliteStore(db),
    close: async () => {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

describe('migrateSqlite', () => {
  it('upgrades a database of release 0.1.0 without losing a row; its sessions and tokens keep working', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'latchkey-upgrade-'))
    const db = openSqlite(join(dir, 'auth.db'))
    try {
      const previous = migrationsUpTo(sqliteMigrationsFolder, RELEASE_0_1_0)
      migrate(drizzle({ client: db }), { migrationsFolder: previous, migrationsTable: '__latchkey_migrations' })
      for (const statement of previousReleaseRows((d) => d.getTime())) db.exec(statement)

      migrateSqlite(db)
      const count = (table: string) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n
      expect(count('__latchkey_migrations')).toBe(migrationCount(sqliteMigrationsFolder))
      const store = sqliteStore(db)
      expect(await store.findUserByEmail('ada@example.com')).toMatchObject({
        user: { id: 'u1', name: 'Ada', role: 'admin' },
        passwordHash: 'old-hash',
        credentialsVersion: 0,
      })
      expect((await store.findSession('s1'))?.user.email).toBe('ada@example.com')
      // A session from before 0.2 recorded no proof: it counts as a password sign-in when it was created.
      expect((await store.findSession('s1'))?.session).toMatchObject({
        authenticatedAt: new Date('2026-11-01T10:00:00.000Z'),
        amr: ['pwd'],
      })
      expect(await store.findResetToken('t1', new Date('2026-11-02T00:00:00.000Z'))).toEqual({
        userId: 'u1',
        email: 'ada@example.com',
      })
      const now = new Date('2026-11-02T00:00:00.000Z')
      const lifetimes = { graceMs: 10_000, idleMs: 30 * 86_400_000, absoluteMs: 90 * 86_400_000 }
      expect(
        (
          await rotateRefresh(store, {
            sessionId: null,
            hash: 'r1',
            keyHash: null,
            issued: false,
            nextHash: 'r2',
            nextKeyHash: 'k',
            now,
            ...lifetimes,
          })
        ).status,
      ).toBe('rotated')
      expect(await store.createSession({ id: 's2', userId: 'u1', refreshHash: 'x', now, credentialsVersion: 0 })).toBe(true)
    } finally {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('sqliteStore durability', () => {
  it('commits revocations and spent credentials with synchronous=FULL, and leaves the setting as it was', async () => {
    const db = openSqlite(join(mkdtempSync(join(tmpdir(), 'latchkey-sync-')), 'auth.db'))
    try {
      migrateSqlite(db)
      // A trigger records the synchronous setting in force while each write runs.
      db.exec(`create table seen (what text, sync integer);
        create trigger session_gone after delete on auth_sessions
          begin insert into seen select 'session deleted', synchronous from pragma_synchronous; end;
        create trigger token_spent after update of refresh_hash on auth_sessions
          begin insert into seen select 'refresh spent', synchronous from pragma_synchronous; end;
        create trigger reset_used after update of used_at on auth_reset_tokens
          begin insert into seen select 'reset used', synchronous from pragma_synchronous; end;`)
      const store = sqliteStore(db)
      const now = new Date('2026-11-21T10:00:00.000Z')
      const user = await store.createUser({ id: 'u', name: 'A', email: 'a@example.com', passwordHash: 'h', createdAt: now })
      if (!user) throw new Error('no user')
      const session = (id: string) => store.createSession({ id, userId: 'u', refreshHash: `r-${id}`, now, credentialsVersion: 0 })
      await session('s1')
      await session('s2')
      const lifetimes = { graceMs: 0, idleMs: 86_400_000, absoluteMs: 86_400_000 }
      await rotateRefresh(store, {
        sessionId: 's1',
        hash: 'r-s1',
        keyHash: null,
        issued: false,
        nextHash: 'r-s1b',
        nextKeyHash: 'k',
        now,
        ...lifetimes,
      })
      await store.deleteSession('s1')
      await store.replacePassword({
        revoke: accountEvents['password-changed'],
        userId: 'u',
        passwordHash: 'h2',
        credentialsVersion: 0,
        keepSessionId: null,
      })
      await store.createResetToken({ userId: 'u', tokenHash: 't', expiresAt: new Date(now.getTime() + 60_000) })
      await store.consumeResetToken({ revoke: accountEvents['password-reset'], tokenHash: 't', now, passwordHash: 'h3' })

      const FULL = 2
      const seen = db.prepare('select what, sync from seen').all() as { what: string; sync: number }[]
      expect(new Set(seen.map((row) => row.what))).toEqual(new Set(['session deleted', 'refresh spent', 'reset used']))
      expect(seen.filter((row) => row.sync !== FULL)).toEqual([])
      expect(db.pragma('synchronous', { simple: true })).toBe(1)
    } finally {
      db.close()
    }
  })
})
