/** The users facet (`store/users.ts`) on a synchronous SQLite driver (every multi-statement step one IMMEDIATE transaction). */
import { eq, sql } from 'drizzle-orm'
import { versionIs } from '../store/predicates.js'
import { toUser, withHash } from '../store/rows.js'
import type { UserRecord, UserStore } from '../store/users.js'
import { type Durable, immediate, preparedOnce, type SyncSqliteDb } from './db.js'
import { revokeSync } from './revoke.js'
import { users } from './schema.js'

export const sqliteUsers = (db: SyncSqliteDb, durable: Durable): UserStore<UserRecord> => {
  // Every login: built and prepared once.
  const hot = preparedOnce(() => ({
    userByEmail: db
      .select()
      .from(users)
      .where(eq(users.email, sql.placeholder('email')))
      .prepare(),
  }))
  return {
    async createUser(input) {
      const rows = db.insert(users).values(input).onConflictDoNothing({ target: users.email }).returning().all()
      const row = rows[0]
      return row ? toUser(row) : null
    },

    async findUserByEmail(email) {
      return withHash(hot().userByEmail.get({ email }))
    },

    async findUserById(id) {
      return withHash(db.select().from(users).where(eq(users.id, id)).get())
    },

    async updatePasswordHash(userId, passwordHash, credentialsVersion) {
      const current = versionIs(users, userId, credentialsVersion)
      return db.update(users).set({ passwordHash }).where(current).run().changes === 1
    },

    async replacePassword({ userId, passwordHash, credentialsVersion, keepSessionId, revoke }) {
      return durable(() =>
        db.transaction((tx) => {
          const replaced = tx
            .update(users)
            .set({ passwordHash })
            .where(versionIs(users, userId, credentialsVersion))
            .run()
          if (replaced.changes !== 1) return false
          revokeSync(tx, { userId, revoke, keepSessionId })
          return true
        }, immediate),
      )
    },

    async setRole(email, role) {
      return db.update(users).set({ role }).where(eq(users.email, email)).run().changes === 1
    },

    async deleteUser(userId, credentialsVersion) {
      // Sessions and tokens go with the user (ON DELETE CASCADE), in the same statement.
      const current = versionIs(users, userId, credentialsVersion)
      return durable(() => db.delete(users).where(current).run().changes === 1)
    },
  }
}
