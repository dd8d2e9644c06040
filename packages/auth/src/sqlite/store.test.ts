import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/better-sqlite3'
import { migrate } from 'drizzle-orm/better-sqlite3/migrator'
import { describe, expect, it } from 'vitest'
import { migrationCount, migrationsUpTo, previousReleaseRows, RELEASE_0_1_0 } from '../../test/previous-release.js'
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
      expect(await store.findResetToken('t1', new Date('2026-11-02T00:00:00.000Z'))).toEqual({
        userId: 'u1',
        email: 'ada@example.com',
      })
      const now = new Date('2026-11-02T00:00:00.000Z')
      const lifetimes = { graceMs: 10_000, idleMs: 30 * 86_400_000, absoluteMs: 90 * 86_400_000 }
      expect((await store.rotateRefresh({ hash: 'r1', nextHash: 'r2', now, ...lifetimes })).status).toBe('rotated')
      expect(await store.createSession({ id: 's2', userId: 'u1', refreshHash: 'x', now, credentialsVersion: 0 })).toBe(true)
    } finally {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
