/**
 * Seeds a SQLite file the reference server has already migrated (its own start-up creates
 * the tables), directly and fast: one transaction, prepared statements. Every seeded user
 * shares one real argon2id hash of {@link PASSWORD}, made at the configured parameters, so
 * logins verify exactly as they would for a signed-up user. Access tokens are signed here
 * with the deployment secret in the library's format (docs/reference/credentials.md#access-tokens: HS256 with the secret's kid; sub, sid,
 * jti, iat, exp, iss, aud), for sessions seeded alongside; the servers verify them like any other.
 */
import { randomUUID } from 'node:crypto'
import { keyIdOf } from '@latchkey/auth/testing'
import { hash } from '@node-rs/argon2'
import Database from 'better-sqlite3'
import { SignJWT } from 'jose'

/** The password of every seeded account: not on any common-password list. */
export const PASSWORD = 'plum tractor lantern bench'
/** The argon2id parameters the library uses by default (`ARGON2_FLOOR`). */
export const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const
const ARGON2ID = 2

export const passwordHash = (): Promise<string> => hash(PASSWORD, { algorithm: ARGON2ID, ...ARGON2 })

export interface SeededUser {
  id: string
  email: string
  sessionId: string
}

export interface SeedSpec {
  /** Distinguishes the emails of one batch from another's. */
  prefix: string
  users: number
  todosPerUser: number
  hash: string
}

const DAY = 86_400_000

/** A UUIDv7 for a given millisecond: a random v4 with the timestamp and version put in (5× faster than uuid's v7 with `msecs`). */
const uuidV7At = (ms: number): string => {
  const hex = ms.toString(16).padStart(12, '0')
  const random = randomUUID()
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${random.slice(15)}`
}

/**
 * Inserts `users` accounts, one live session each, and `todosPerUser` todos each. Todos are
 * inserted in time order, interleaved across users, as a real history would be.
 */
export const seed = (path: string, spec: SeedSpec): SeededUser[] => {
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  // Seeding only: the data is consistent by construction, so no foreign-key checks and no
  // fsync, and a large page cache. The server opens the file with its own settings.
  db.pragma('foreign_keys = OFF')
  db.pragma('synchronous = OFF')
  db.pragma('cache_size = -400000')
  const now = Date.now()
  const users: SeededUser[] = []
  const insertUser = db.prepare(
    'insert into auth_users (id, name, email, password_hash, role, created_at) values (?, ?, ?, ?, null, ?)',
  )
  const insertSession = db.prepare('insert into auth_sessions (id, user_id, created_at, refreshed_at) values (?, ?, ?, ?)')
  const insertTodo = db.prepare('insert into todos (id, user_id, title, done, created_at) values (?, ?, ?, ?, ?)')
  // The secondary indexes of `todos`, exactly as the migrations made them: dropped during the
  // bulk insert and rebuilt after (one sort instead of a million random B-tree inserts).
  const indexes = db
    .prepare<[], { name: string; sql: string }>(
      "select name, sql from sqlite_master where type = 'index' and tbl_name = 'todos' and sql is not null",
    )
    .all()
  db.transaction(() => {
    for (const { name } of indexes) db.exec(`drop index "${name}"`)
    for (let i = 0; i < spec.users; i++) {
      const user = { id: randomUUID(), email: `${spec.prefix}${i}@bench.test`, sessionId: randomUUID() }
      insertUser.run(user.id, `Bench ${i}`, user.email, spec.hash, now - 400 * DAY)
      insertSession.run(user.sessionId, user.id, now, now)
      users.push(user)
    }
    // A year of history, oldest first.
    const total = spec.users * spec.todosPerUser
    const step = (365 * DAY) / Math.max(1, total)
    let n = 0
    for (let k = 0; k < spec.todosPerUser; k++)
      for (const user of users) {
        const createdAt = Math.floor(now - 365 * DAY + n * step)
        insertTodo.run(uuidV7At(createdAt), user.id, `Todo ${k} of ${user.email}`, k % 3 === 0 ? 1 : 0, createdAt)
        n++
      }
    for (const { sql } of indexes) db.exec(sql)
  })()
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  return users
}

/** An access token for a seeded session, exactly as the library issues them (default iss/aud, the secret's kid). */
export const accessToken = (secret: string, user: SeededUser, ttlSeconds = 900): Promise<string> => {
  const iat = Math.floor(Date.now() / 1000)
  return new SignJWT({ sid: user.sessionId, jti: randomUUID() })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: keyIdOf(secret) })
    .setSubject(user.id)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .setIssuer('latchkey')
    .setAudience('latchkey')
    .sign(new TextEncoder().encode(secret))
}
