/**
 * The PostgreSQL store, its migration and the shared rate-limit store, against a real server
 * (`PG_TEST_URL`, default postgres://postgres@127.0.0.1:5432/test). Every test gets a fresh
 * schema of its own, so files and tests may run in parallel. Without a reachable server the
 * tests skip and say why.
 */
import { randomUUID } from 'node:crypto'
import { drizzle } from 'drizzle-orm/node-postgres'
import { migrate } from 'drizzle-orm/node-postgres/migrator'
import pg from 'pg'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { migrationCount, migrationsUpTo, previousReleaseRows, RELEASE_0_1_0 } from '../../test/previous-release.js'
import { freshSchema, PG_URL, pgUnreachable } from '../../test/stores.js'
import { accountEvents } from '../account-events.js'
import { errorSummary } from '../errors.js'
import { rotateRefresh } from '../refresh-rotation.js'
import { storeConformance } from '../testing/store-conformance.js'
import { migratePostgres, postgresMigrationsFolder, postgresRateLimitStore, postgresStore } from './index.js'

describe.skipIf(pgUnreachable !== null)('PostgreSQL', () => {
  storeConformance('postgres', async () => {
    const db = await freshSchema()
    return { store: postgresStore(db.pool), close: db.drop }
  })

  describe('postgresStore under mixed concurrency', () => {
    it('never deadlocks when refresh, logout, reset and password change hit one user at once', async () => {
      const db = await freshSchema()
      const store = postgresStore(db.pool)
      const now = new Date('2026-11-21T10:00:00.000Z')
      const lifetimes = {
        now,
        graceMs: 10_000,
        idleMs: 86_400_000,
        absoluteMs: 86_400_000,
        keyHash: null,
        issued: false,
        nextKeyHash: 'k',
      }
      const later = new Date(now.getTime() + 60_000)
      const failures: unknown[] = []
      try {
        for (let round = 0; round < 25; round++) {
          const user = await store.createUser({
            id: randomUUID(),
            name: 'M',
            email: `${randomUUID()}@x.test`,
            passwordHash: 'h',
            createdAt: now,
          })
          if (!user) throw new Error('createUser refused a fresh email')
          const sid = randomUUID()
          await store.createSession({ id: sid, userId: user.id, refreshHash: `r-${sid}`, now, credentialsVersion: 0 })
          await store.createResetToken({ userId: user.id, tokenHash: `t-${sid}`, expiresAt: later })
          const outcomes = await Promise.allSettled([
            rotateRefresh(store, { sessionId: sid, hash: `r-${sid}`, nextHash: `n-${sid}`, ...lifetimes }),
            store.deleteSession(sid),
            rotateRefresh(store, { sessionId: sid, hash: `r-${sid}`, nextHash: `m-${sid}`, ...lifetimes }),
            store.consumeResetToken({ revoke: accountEvents['password-reset'], tokenHash: `t-${sid}`, now, passwordHash: 'p' }),
            store.createResetToken({ userId: user.id, tokenHash: `u-${sid}`, expiresAt: later }),
            store.replacePassword({
              revoke: accountEvents['password-changed'],
              userId: user.id,
              passwordHash: 'q',
              credentialsVersion: 0,
              keepSessionId: null,
            }),
            store.createSession({ id: randomUUID(), userId: user.id, refreshHash: randomUUID(), now, credentialsVersion: 0 }),
          ])
          for (const outcome of outcomes) if (outcome.status === 'rejected') failures.push(outcome.reason)
        }
      } finally {
        await db.drop()
      }
      expect(failures).toEqual([])
    })
  })

  describe('database errors in logs', () => {
    it('are summarised by name and SQLSTATE, never with the statement or its parameters', async () => {
      const db = await freshSchema()
      try {
        const store = postgresStore(db.pool)
        const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g'
        const failure = await store
          .createUser({
            id: randomUUID(),
            name: 'evil\u0000\n[dev mail] forged',
            email: 'e@x.test',
            passwordHash: hash,
            createdAt: new Date(),
          })
          .then(
            () => null,
            (err: unknown) => err,
          )
        expect(failure).toBeInstanceOf(Error)
        // The raw error carries the parameters: the reason a message must never be logged.
        expect(String((failure as Error).message)).toContain('$argon2id$')
        const line = errorSummary(failure)
        expect(line).toMatch(/code 22021/)
        expect(line).not.toContain('argon2')
        expect(line.includes('\n') || line.includes('\u0000')).toBe(false)
        expect(line).not.toContain('forged')
      } finally {
        await db.drop()
      }
    })
  })

  describe('migratePostgres', () => {
    let db: Awaited<ReturnType<typeof freshSchema>>
    beforeEach(async () => {
      db = await freshSchema({ migrate: false })
    })
    afterEach(() => db.drop())

    it('creates the tables once, however many instances migrate at once, and again is a no-op', async () => {
      const instances = Array.from({ length: 5 }, () => db.connect())
      await Promise.all(instances.map((pool) => migratePostgres(pool, { migrationsSchema: db.name })))
      await migratePostgres(db.pool, { migrationsSchema: db.name })
      expect(await db.count('__latchkey_migrations')).toBe(migrationCount(postgresMigrationsFolder))
      for (const table of ['auth_users', 'auth_sessions', 'auth_reset_tokens', 'auth_rate_limits'])
        expect(await db.count(table)).toBe(0)
    })

    it("keeps its bookkeeping in the connection's schema: no other schema appears", async () => {
      await migratePostgres(db.pool)
      expect(await db.count(`${db.name}.__latchkey_migrations`)).toBe(migrationCount(postgresMigrationsFolder))
      await migratePostgres(db.pool)
      expect(await db.count(`${db.name}.__latchkey_migrations`)).toBe(migrationCount(postgresMigrationsFolder))
    })

    it('leaves the bookkeeping of a database an earlier version migrated where it is (drizzle)', async () => {
      // A database of its own: the `drizzle` schema is the database's, not one test's.
      const name = `lk_legacy_${randomUUID().replaceAll('-', '').slice(0, 12)}`
      await db.pool.query(`create database ${name}`)
      const url = new URL(PG_URL)
      url.pathname = `/${name}`
      const pool = new pg.Pool({ connectionString: url.href })
      // `pool.end()` resolves before its connections have closed; the forced drop below may
      // terminate one still closing, and a pool without a listener throws that error.
      pool.on('error', () => {})
      try {
        const client = await pool.connect()
        try {
          await migrate(drizzle({ client }), {
            migrationsFolder: migrationsUpTo(postgresMigrationsFolder, RELEASE_0_1_0),
            migrationsTable: '__latchkey_migrations',
            migrationsSchema: 'drizzle',
          })
        } finally {
          client.release()
        }
        await migratePostgres(pool)
        const count = async (table: string) => Number((await pool.query(`select count(*) as n from ${table}`)).rows[0].n)
        expect(await count('drizzle.__latchkey_migrations')).toBe(migrationCount(postgresMigrationsFolder))
        const local = await pool.query(`select to_regclass('public.__latchkey_migrations') as t`)
        expect(local.rows[0].t).toBeNull()
        expect(await count('auth_users')).toBe(0)
      } finally {
        await pool.end()
        await db.pool.query(`drop database ${name} with (force)`)
      }
    })

    it('upgrades a database of release 0.1.0 without losing a row; its sessions and tokens keep working', async () => {
      const previous = migrationsUpTo(postgresMigrationsFolder, RELEASE_0_1_0)
      const client = await db.pool.connect()
      try {
        await migrate(drizzle({ client }), {
          migrationsFolder: previous,
          migrationsTable: '__latchkey_migrations',
          migrationsSchema: db.name,
        })
      } finally {
        client.release()
      }
      for (const statement of previousReleaseRows((d) => `'${d.toISOString()}'`)) await db.pool.query(statement)

      await migratePostgres(db.pool, { migrationsSchema: db.name })
      expect(await db.count('__latchkey_migrations')).toBe(migrationCount(postgresMigrationsFolder))
      const store = postgresStore(db.pool)
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
      const now = new Date('2026-11-02T00:00:00.000Z')
      expect(await store.findResetToken('t1', now)).toEqual({ userId: 'u1', email: 'ada@example.com' })
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
    })
  })

  describe('postgresRateLimitStore', () => {
    const T = Date.parse('2026-11-21T10:00:00.000Z')
    let db: Awaited<ReturnType<typeof freshSchema>>
    beforeEach(async () => {
      db = await freshSchema()
    })
    afterEach(() => db.drop())
    const one = (key: string, max: number, windowMs: number) => [{ key, max, windowMs }]

    it('shares one count between two instances on separate pools', async () => {
      const a = postgresRateLimitStore(db.pool)
      const b = postgresRateLimitStore(db.connect())
      const allowed = []
      for (let i = 0; i < 6; i++) allowed.push((await (i % 2 ? b : a).attempt(one('signup:email:x', 3, 60_000), T + i)).allowed)
      expect(allowed).toEqual([true, true, true, false, false, false])
    })

    it('prunes ended windows, keeps open ones, and a pruned key starts again', async () => {
      const store = postgresRateLimitStore(db.pool, { pruneIntervalMs: 0 })
      for (let i = 0; i < 200; i++) await store.attempt(one(`login:ip:${i}`, 5, 1000), T)
      await store.attempt(one('login:ip:open', 2, 10_000), T + 500)
      expect(await db.count('auth_rate_limits')).toBe(201)
      expect(await store.prune(T + 1000)).toBe(200)
      expect(await db.count('auth_rate_limits')).toBe(1)
      expect((await store.attempt(one('login:ip:open', 2, 10_000), T + 1000)).allowed).toBe(true)
      expect((await store.attempt(one('login:ip:open', 2, 10_000), T + 1000)).allowed).toBe(false)
    })

    it('prunes by itself at most once per interval, so distinct keys do not pile up', async () => {
      const store = postgresRateLimitStore(db.pool, { pruneIntervalMs: 60_000 })
      for (let minute = 0; minute < 5; minute++)
        for (let i = 0; i < 50; i++) await store.attempt(one(`reset:email:${minute}-${i}`, 5, 30_000), T + minute * 60_000 + i)
      // Each minute's first attempt pruned the previous minute's ended windows.
      expect(await db.count('auth_rate_limits')).toBe(50)
    })
  })
})
